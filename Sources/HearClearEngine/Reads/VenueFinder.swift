import Foundation
import HearClearModel
import HearClearStore
import Logging
import LoudnessCore
import PostgresNIO

/// Finding a quiet place (docs/ARCHITECTURE.md, "Search"): venues near a point by their loudness
/// at an hour, quieter alternatives to a venue, and venues with a similar week. The
/// ``SearchIndex`` finds and orders them when it is ready, PostgreSQL (PostGIS) otherwise, with
/// the same answers; this type turns labels into level ranges and stored cells into what the API
/// shows.
public struct VenueFinder: Sendable {
    let database: ReadDatabase
    let index: SearchIndex
    private let primary: VenueSearchRepository
    private let replica: VenueSearchRepository?
    let loudness: LoudnessReads
    let logger: Logger

    /// How much quieter an alternative must be, dB, unless it is in a quieter band. Default 3.
    public static let alternativeMarginDB = 3.0
    /// Fewest cells two venues must both have measured to be compared. Default 3.
    public static let minimumSharedCells = 3
    /// Most venues compared with one for similarity. Default 500, the nearest.
    public static let similarCandidates = 500

    /// Finds with `index` when it is ready, else on `database` (its replica when answering).
    public init(database: ReadDatabase, loudness: LoudnessReads, index: SearchIndex, logger: Logger) {
        self.database = database
        self.index = index
        primary = VenueSearchRepository(client: database.primary, logger: logger)
        replica = database.replica.map { VenueSearchRepository(client: $0, logger: logger) }
        self.loudness = loudness
        self.logger = logger
    }

    private func store(_ side: ReadDatabase.Side) -> VenueSearchRepository {
        side == .replica ? replica ?? primary : primary
    }

    /// One venue found.
    public struct Hit: Sendable {
        public var venue: Venue
        public var checkins: Int
        public var distanceMetres: Double
        /// Overall level and label (the venue document's).
        public var overall: (levelDB: Double, label: String)?
        /// The cell used for `at`; `nil` without `at` or without a cell there.
        public var cell: LoudnessReads.Cell?
        /// Where the hit sits in the order, for a cursor.
        public var position: VenueSearchQuery.Position
    }

    /// What to search for, in the API's terms.
    public struct Search: Sendable {
        public var latitude: Double
        public var longitude: Double
        public var radiusMetres: Double
        public var at: Date?
        public var maxLevelDB: Double?
        /// Band labels, any of which passes; empty for no label filter.
        public var labels: [String]
        public var category: String?
        public var order: VenueSearchQuery.Order
        public var limit: Int
        public var after: VenueSearchQuery.Position?

        /// A search around a point; by default any level and label, nearest first, 20 a page.
        public init(
            latitude: Double, longitude: Double, radiusMetres: Double, at: Date? = nil, maxLevelDB: Double? = nil,
            labels: [String] = [], category: String? = nil, order: VenueSearchQuery.Order = .distance,
            limit: Int = 20, after: VenueSearchQuery.Position? = nil
        ) {
            self.latitude = latitude
            self.longitude = longitude
            self.radiusMetres = radiusMetres
            self.at = at
            self.maxLevelDB = maxLevelDB
            self.labels = labels
            self.category = category
            self.order = order
            self.limit = limit
            self.after = after
        }
    }

    /// A page of hits, and whether there are more after it.
    public struct Page: Sendable {
        public var hits: [Hit]
        public var hasMore: Bool
    }

    /// `search(_:bands:)`: the page of venues for `search`, labels read from `bands`. Labels not
    /// in `bands` must be refused before (the API answers 422).
    public func search(_ search: Search, bands: Bands) async throws -> Page {
        var filter: VenueSearchQuery.LevelFilter?
        if search.maxLevelDB != nil || !search.labels.isEmpty {
            filter = .init(
                maximumDB: search.maxLevelDB, bandBounds: bands.bands.compactMap(\.belowDB),
                bandIndexes: bands.bands.indices.filter { search.labels.contains(bands.bands[$0].label) })
        }
        let query = VenueSearchQuery(
            latitude: search.latitude, longitude: search.longitude, radiusMetres: search.radiusMetres, at: search.at,
            category: search.category, filter: filter, order: search.order, limit: search.limit + 1,
            after: search.after)
        return try await page(query, limit: search.limit, bands: bands)
    }

    /// What to search for by name (docs/ARCHITECTURE.md, "Search", "By name").
    public struct NameSearch: Sendable {
        /// The text searched for, 1–100 characters: its words (``NameWords``) must each start a
        /// word of the name.
        public var prefix: String
        /// The point to search around, if any: then only venues within `radiusMetres`, nearest first.
        public var near: (latitude: Double, longitude: Double)?
        public var radiusMetres: Double
        public var at: Date?
        public var category: String?
        public var limit: Int
        /// The last hit of the page before: its position and its venue's name.
        public var after: (position: VenueSearchQuery.Position, name: String)?

        /// A search for `prefix`, by default anywhere; with `near`, within 1 km of it; 20 a page.
        public init(
            prefix: String, near: (latitude: Double, longitude: Double)? = nil, radiusMetres: Double = 1_000,
            at: Date? = nil, category: String? = nil, limit: Int = 20,
            after: (position: VenueSearchQuery.Position, name: String)? = nil
        ) {
            self.prefix = prefix
            self.near = near
            self.radiusMetres = radiusMetres
            self.at = at
            self.category = category
            self.limit = limit
            self.after = after
        }
    }

    /// `searchByName(_:bands:)`: venues with a word of their name starting with each word of the
    /// text (``NameWords``: in any order, case and accents folded), by name (nearest first with a
    /// point): from the search index when it is ready, else from PostgreSQL, with the same answers.
    public func searchByName(_ search: NameSearch, bands: Bands) async throws -> Page {
        let words = NameWords.searchWords(of: search.prefix)
        guard !words.isEmpty else { return Page(hits: [], hasMore: false) }
        let afterKey = search.after.map { NameWords.key(of: $0.name) }
        if let found = index.searchByName(
            words: words, near: search.near, radiusMetres: search.radiusMetres, at: search.at,
            category: search.category, limit: search.limit + 1, after: search.after?.position, afterKey: afterKey)
        {
            return Page(
                hits: found.prefix(search.limit).map { hit($0, bands: bands) }, hasMore: found.count > search.limit)
        }
        let found = try await databaseNamePage(search, words: words, afterKey: afterKey)
        return Page(
            hits: found.prefix(search.limit).map { hit($0, bands: bands) }, hasMore: found.count > search.limit)
    }

    /// The page of a search by name PostgreSQL finds (`search.limit + 1` hits at most), whatever
    /// the index's state.
    func databaseNamePage(_ search: NameSearch, words: [String], afterKey: String?) async throws
        -> [VenueSearchHit]
    {
        SearchIndex.answeredByDatabase()
        let referenceOffsetDB = loudness.referenceOffsetDB
        return try await database.read { [self] in
            try await store($0).searchByName(
                words: words, latitude: search.near?.latitude, longitude: search.near?.longitude,
                radiusMetres: search.radiusMetres, at: search.at, category: search.category, limit: search.limit + 1,
                after: search.after?.position, afterKey: afterKey, referenceOffsetDB: referenceOffsetDB)
        }
    }

    private func page(_ query: VenueSearchQuery, limit: Int, bands: Bands) async throws -> Page {
        if let found = index.search(query) {
            return Page(hits: found.prefix(limit).map { hit($0, bands: bands) }, hasMore: found.count > limit)
        }
        let found = try await databasePage(query)
        return Page(hits: found.prefix(limit).map { hit($0, bands: bands) }, hasMore: found.count > limit)
    }

    /// The page PostgreSQL finds (`query.limit` hits at most), whatever the index's state.
    func databasePage(_ query: VenueSearchQuery) async throws -> [VenueSearchHit] {
        SearchIndex.answeredByDatabase()
        let referenceOffsetDB = loudness.referenceOffsetDB
        return try await database.read { [self] in
            try await store($0).search(query, referenceOffsetDB: referenceOffsetDB)
        }
    }

    private func hit(_ found: VenueSearchHit, bands: Bands) -> Hit {
        Hit(
            venue: found.venue, checkins: found.checkins, distanceMetres: found.distanceMetres,
            overall: found.overallDB.map { ($0, LoudnessReads.label(ofCalibratedDB: $0, bands: bands)) },
            cell: found.cell.map { loudness.cell($0, bands: bands) }, position: found.position)
    }

    private func hit(_ found: SearchIndex.Hit, bands: Bands) -> Hit {
        Hit(
            venue: found.venue, checkins: found.checkins, distanceMetres: found.distanceMetres,
            overall: found.overallDB.map { ($0, LoudnessReads.label(ofCalibratedDB: $0, bands: bands)) },
            cell: found.cell.map { cell(index: $0.index, $0.cell, bands: bands) }, position: found.position)
    }

    /// A cell the index holds, as reported: what ``LoudnessReads/cell(_:bands:)`` makes of the
    /// same stored values.
    private func cell(index: Int, _ cell: IndexedVenue.PackedCell, bands: Bands) -> LoudnessReads.Cell {
        loudness.cell(
            localHour: LocalHour(weekday: index / 24 + 1, hour: index % 24), levelDBFS: Double(cell.levelDBFS),
            rangeDBFS: (Double(cell.rangeLowDBFS), Double(cell.rangeHighDBFS)), checkins: Int(cell.checkins),
            devices: Int(cell.devices), confidence: cell.confidenceName, basis: cell.estimateBasis, bands: bands)
    }

    /// A venue by external id, from the index when it is ready.
    private func venue(externalID: String) async throws -> Venue? {
        if let held = index.venue(externalID: externalID) { return held }
        return try await loudness.venue(externalID: externalID)
    }

    /// `week(at:bands:)`: each venue's cells at its venue-local hour (0–23) on every weekday,
    /// Monday first, `nil` for a day without a cell: from the index when it is ready, else in one
    /// round trip to PostgreSQL. A venue unknown to both has seven `nil`s.
    public func week(at hours: [(venueID: Int64, hour: Int)], bands: Bands) async throws -> [Int64: [LoudnessReads
        .Cell?]]
    {
        if let held = index.week(at: hours) {
            return held.mapValues { days in days.map { $0.map { cell(index: $0.index, $0.cell, bands: bands) } } }
        }
        let stored = try await database.read { [self] in try await loudness.cellsOfHours(hours, side: $0) }
        var found: [Int64: [LoudnessReads.Cell?]] = [:]
        for (venueID, _) in hours { found[venueID] = Array(repeating: nil, count: 7) }
        for (venueID, cell) in stored where (1...7).contains(cell.weekday) {
            found[venueID]?[cell.weekday - 1] = loudness.cell(cell, bands: bands)
        }
        return found
    }

    /// Alternatives to one venue: where it stands at `at`, and venues near it quieter then.
    public struct Alternatives: Sendable {
        /// The venue's own cell at `at` (`nil` when it has none there; then nothing is compared).
        public var cell: LoudnessReads.Cell?
        public var hits: [Hit]
    }

    /// `alternatives(externalID:at:radiusMetres:limit:bands:)`: venues within `radiusMetres` of
    /// the venue that are quieter at `at` (each in its own local hour) by at least
    /// ``alternativeMarginDB`` or by a whole band, nearest first; `nil` for an unknown venue.
    public func alternatives(
        externalID: String, at: Date, radiusMetres: Double, limit: Int, bands: Bands
    ) async throws -> Alternatives? {
        guard let venue = try await venue(externalID: externalID) else { return nil }
        let own: LoudnessReads.Cell?
        if let held = index.cell(venueID: venue.id, at: at) {
            own = held.map { cell(index: $0.index, $0.cell, bands: bands) }
        } else {
            let stored = try await database.read { [self] in try await store($0).cell(venueID: venue.id, at: at) }
            own = stored.map { loudness.cell($0, bands: bands) }
        }
        guard let own else { return Alternatives(cell: nil, hits: []) }
        let query = VenueSearchQuery(
            latitude: venue.latitude, longitude: venue.longitude, radiusMetres: radiusMetres, at: at,
            filter: .init(belowDB: Self.quieterBound(than: own.levelDB, bands: bands)),
            order: .distance, limit: limit, excludingVenueID: venue.id)
        let page = try await page(query, limit: limit, bands: bands)
        return Alternatives(cell: own, hits: page.hits)
    }

    /// The reported levels (0.1 dB steps) below this bound are quieter than `levelDB` by at least
    /// ``alternativeMarginDB`` (`≤ level − 3`, i.e. `< level − 3 + 0.05`) or in a quieter band
    /// (below the lower bound of `levelDB`'s band): the larger of the two bounds.
    public static func quieterBound(than levelDB: Double, bands: Bands) -> Double {
        let band = bands.band(for: levelDB)
        let index = bands.bands.firstIndex { $0.label == band.label } ?? 0
        let bandLower = index == 0 ? -Double.greatestFiniteMagnitude : bands.bands[index - 1].belowDB ?? 0
        return max(bandLower, levelDB - alternativeMarginDB + 0.05)
    }

    /// A venue with a week like another's.
    public struct Similar: Sendable, Equatable {
        public var venue: Venue
        public var checkins: Int
        public var distanceMetres: Double
        /// Its overall level, calibrated dB rounded to 0.1 (the venue document's).
        public var overallDB: Double?
        /// Root-mean-square difference of the two venues' levels over the cells both measured, dB.
        public var differenceDB: Double
        /// How many cells both measured.
        public var sharedCells: Int
    }

    /// `similar(externalID:radiusMetres:limit:)`: venues within `radiusMetres` whose measured
    /// levels are closest to this venue's over the cells both have measured (root-mean-square
    /// difference, at least ``minimumSharedCells`` cells in common), closest first; `nil` for an
    /// unknown venue, empty when it has no measured cells.
    public func similar(externalID: String, radiusMetres: Double, limit: Int) async throws -> [Similar]? {
        guard let venue = try await venue(externalID: externalID) else { return nil }
        // One read: the venue's own row comes with its neighbours' (it is the nearest of them).
        let found: [VenuePattern]
        if let held = index.patterns(
            latitude: venue.latitude, longitude: venue.longitude, radiusMetres: radiusMetres,
            limit: Self.similarCandidates + 1)
        {
            found = held
        } else {
            found = try await database.read { [self] in
                try await store($0).patterns(
                    latitude: venue.latitude, longitude: venue.longitude, radiusMetres: radiusMetres,
                    limit: Self.similarCandidates + 1)
            }
        }
        guard let own = found.first(where: { $0.venue.id == venue.id })?.measuredLevelsDBFS else {
            return []
        }
        let candidates = found.filter { $0.venue.id != venue.id }.prefix(Self.similarCandidates)
        let similar = candidates.compactMap { candidate -> Similar? in
            guard let (difference, shared) = Self.difference(own, candidate.measuredLevelsDBFS) else { return nil }
            return Similar(
                venue: candidate.venue, checkins: candidate.checkins, distanceMetres: candidate.distanceMetres,
                overallDB: candidate.overallDBFS.map { LoudnessReads.rounded($0 + loudness.referenceOffsetDB) },
                differenceDB: difference, sharedCells: shared)
        }
        let ordered = similar.sorted {
            ($0.differenceDB, $0.distanceMetres, $0.venue.id) < ($1.differenceDB, $1.distanceMetres, $1.venue.id)
        }
        return Array(ordered.prefix(limit))
    }

    /// Root-mean-square difference over the cells both weeks have, and how many there are; `nil`
    /// with fewer than ``minimumSharedCells``.
    public static func difference(_ a: [Double?], _ b: [Double?]) -> (rmsDB: Double, shared: Int)? {
        var sum = 0.0
        var shared = 0
        for (x, y) in zip(a, b) {
            guard let x, let y else { continue }
            sum += (x - y) * (x - y)
            shared += 1
        }
        guard shared >= minimumSharedCells else { return nil }
        return ((sum / Double(shared)).squareRoot(), shared)
    }
}
