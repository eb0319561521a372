import Foundation
import HearClearModel
import LoudnessCore
import Metrics

/// Every venue in this instance's memory, for search, alternatives and similar venues
/// (docs/ARCHITECTURE.md, "Search"): answers exactly as ``VenueSearchRepository`` (PostGIS) does,
/// from a ``SearchGrid`` of venues and their levels, while it is ``Phase/ready``; otherwise it
/// answers `nil` and PostgreSQL does.
///
/// It is kept true as the read cache is: by the ``ReadChange`` notifications (told by the
/// listener: ``listening()``, ``notified(_:)``, ``lost()``), which ``SearchIndexService`` turns into
/// reads of the venues named. It loads everything each time the listener listens (again): while
/// not listening it cannot know what it missed, so it is ``Phase/stale`` and answers nothing. A
/// load or a read racing a change cannot outlive it: changes heard during a load are read again
/// once the load is in, and a venue's row read before its last change is not kept.
public final class SearchIndex: Sendable {
    /// Where the index stands.
    public enum Phase: String, Sendable, CaseIterable {
        /// `--search-index off`: PostgreSQL answers every search.
        case off
        /// Reading every venue (PostgreSQL answers meanwhile).
        case loading
        /// Answering.
        case ready
        /// Not listening: what changed is unknown; PostgreSQL answers until it listens and loads again.
        case stale
    }

    /// What ``SearchIndexService`` should do next.
    enum Work: Sendable {
        case load(generation: UInt64)
        case refresh(externalIDs: [String], ticket: UInt64, generation: UInt64)
    }

    private struct State {
        var phase: Phase
        /// Raised each time the listener listens or is lost: a load or refresh of an older
        /// generation is not kept.
        var generation: UInt64 = 0
        var loadStarted: UInt64?
        /// Notifications heard, and for each venue not read since its last one, when that was.
        var sequence: UInt64 = 0
        var dirty: [String: UInt64] = [:]
        var table: VenueTable
    }

    /// The calibrated level is stored dBFS plus this (configuration's `--reference-offset-db`).
    let referenceOffsetDB: Double
    /// Searches read at once; changes one at a time (``ReadersWriterLock``).
    private let state: ReadersWriterLock<State>
    private let wakeUp: AsyncStream<Void>.Continuation
    /// Yields when there may be work for ``SearchIndexService``.
    let wakes: AsyncStream<Void>
    /// Venues read again at once, at most.
    static let refreshBatch = 500

    static let searches = (
        index: Counter(label: "hearclear_searches_total", dimensions: [("path", "index")]),
        database: Counter(label: "hearclear_searches_total", dimensions: [("path", "database")])
    )
    static let venuesGauge = Gauge(label: "hearclear_search_index_venues")
    static let bytesGauge = Gauge(label: "hearclear_search_index_bytes")
    static let phaseGauges = Dictionary(
        uniqueKeysWithValues: Phase.allCases.map {
            ($0, Gauge(label: "hearclear_search_index_state", dimensions: [("state", $0.rawValue)]))
        })

    /// - Parameters:
    ///   - enabled: `false` (`--search-index off`) keeps it ``Phase/off``: nothing is loaded.
    ///   - grid: the cells venues are kept in.
    public init(enabled: Bool, referenceOffsetDB: Double, grid: SearchGrid = SearchGrid()) {
        self.referenceOffsetDB = referenceOffsetDB
        let phase: Phase = enabled ? .stale : .off
        state = ReadersWriterLock(State(phase: phase, table: VenueTable(grid: grid)))
        (wakes, wakeUp) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        Self.record(phase: phase, table: nil)
    }

    /// The phase, venues held and their estimated bytes.
    public var status: (phase: Phase, venues: Int, bytes: Int) {
        state.withReadLock { ($0.phase, $0.table.count, $0.table.bytes) }
    }

    // MARK: - Kept true by the listener

    /// The listener listens (again): load everything.
    public func listening() {
        if restart(as: .loading) { wakeUp.yield() }
    }

    /// The listener lost its connection: what changes now is unheard, so stop answering and drop
    /// what is held.
    public func lost() {
        restart(as: .stale)
    }

    /// Drops what is held and enters `phase` (loading or stale), unless the index is off; later
    /// loads and batches of an older generation are then refused. Whether it did.
    @discardableResult
    private func restart(as phase: Phase) -> Bool {
        let changed = state.withLock { state -> Bool in
            guard state.phase != .off else { return false }
            state.generation += 1
            state.phase = phase
            state.loadStarted = nil
            state.dirty = [:]
            state.table = VenueTable(grid: state.table.grid)
            return true
        }
        if changed { Self.record(phase: phase, table: (0, 0)) }
        return changed
    }

    /// A change was heard: a venue's row is read again (a change of bands changes no level).
    public func notified(_ change: ReadChange) {
        guard case .venue(let externalID) = change else { return }
        let wake = state.withLock { state -> Bool in
            guard state.phase == .loading || state.phase == .ready else { return false }
            state.sequence += 1
            state.dirty[externalID] = state.sequence
            return state.phase == .ready
        }
        if wake { wakeUp.yield() }
    }

    // MARK: - Kept true by the service

    /// The next thing to do: the load when one is due, else a batch of venues to read again.
    func nextWork() -> Work? {
        state.withLock { state in
            switch state.phase {
            case .loading where state.loadStarted != state.generation:
                state.loadStarted = state.generation
                return .load(generation: state.generation)
            case .ready where !state.dirty.isEmpty:
                return .refresh(
                    externalIDs: Array(state.dirty.keys.prefix(Self.refreshBatch)), ticket: state.sequence,
                    generation: state.generation)
            default:
                return nil
            }
        }
    }

    /// A load failed: it is due again.
    func loadFailed(generation: UInt64) {
        state.withLock { state in
            if state.generation == generation, state.phase == .loading { state.loadStarted = nil }
        }
    }

    /// A new, empty table to load into.
    func emptyTable() -> VenueTable {
        state.withReadLock { VenueTable(grid: $0.table.grid) }
    }

    /// Puts a loaded table in and starts answering, unless the listener listened again or was
    /// lost since the load began. The changes heard meanwhile are read next.
    @discardableResult
    func install(_ table: VenueTable, generation: UInt64) -> Bool {
        let installed = state.withLock { state -> Bool in
            guard state.generation == generation, state.phase == .loading else { return false }
            state.table = table
            state.phase = .ready
            return true
        }
        if installed {
            Self.record(phase: .ready, table: (table.count, table.bytes))
            wakeUp.yield()
        }
        return installed
    }

    /// Keeps the rows read for `asked` (read after `ticket`): each venue's row replaces what is
    /// held, an id without a row is taken out; a venue heard of again since `ticket` is not
    /// touched (it is read again).
    func apply(_ rows: [SearchIndexRow], asked: [String], ticket: UInt64, generation: UInt64) {
        let sizes = state.withLock { state -> (Int, Int)? in
            guard state.generation == generation, state.phase == .ready else { return nil }
            let found = Dictionary(rows.map { ($0.venue.externalID, $0) }, uniquingKeysWith: { first, _ in first })
            for externalID in asked {
                guard let heard = state.dirty[externalID], heard <= ticket else { continue }
                state.dirty[externalID] = nil
                if let row = found[externalID] {
                    state.table.insert(row)
                } else {
                    state.table.remove(externalID: externalID)
                }
            }
            return (state.table.count, state.table.bytes)
        }
        if let sizes {
            Self.venuesGauge.record(sizes.0)
            Self.bytesGauge.record(sizes.1)
        }
    }

    private static func record(phase: Phase, table: (venues: Int, bytes: Int)?) {
        for (each, gauge) in phaseGauges { gauge.record(each == phase ? 1 : 0) }
        if let table {
            venuesGauge.record(table.venues)
            bytesGauge.record(table.bytes)
        }
    }

    // MARK: - Answering

    /// A venue a search found, as ``VenueSearchRepository`` finds it.
    struct Hit: Sendable {
        var venue: Venue
        var checkins: Int
        var distanceMetres: Double
        /// Calibrated, rounded as SQL rounds (`floor(x · 10 + 0.5) / 10`).
        var overallDB: Double?
        /// The cell used for `at`, as stored.
        var cell: (index: Int, cell: IndexedVenue.PackedCell)?
        var position: VenueSearchQuery.Position
    }

    /// Counts a search answered by PostgreSQL (by ``VenueFinder``), for `/metrics`.
    static func answeredByDatabase() { searches.database.increment() }

    /// The page of `query` (whose `limit` is what to return), or `nil` when the index is not
    /// ready or a venue found keeps its hours by a zone Foundation does not know (PostgreSQL then
    /// answers).
    func search(_ query: VenueSearchQuery) -> [Hit]? {
        let hits = state.withReadLock { state -> [Hit]? in
            guard state.phase == .ready else { return nil }
            return Searcher(table: state.table, query: query, referenceOffsetDB: referenceOffsetDB).run()
        }
        if hits != nil { Self.searches.index.increment() }
        return hits
    }

    /// The page of a search by name (``NameSearcher``; `limit` is what to return), or `nil` when
    /// the index is not ready or a venue on the page keeps its hours by a zone Foundation does
    /// not know (PostgreSQL then answers).
    func searchByName(
        words: [String], near: (latitude: Double, longitude: Double)?, radiusMetres: Double, at: Date?,
        category: String?, limit: Int, after: VenueSearchQuery.Position?, afterKey: String?
    ) -> [Hit]? {
        let hits = state.withReadLock { state -> [Hit]? in
            guard state.phase == .ready else { return nil }
            return NameSearcher(
                table: state.table, words: words, near: near, radiusMetres: radiusMetres, at: at, category: category,
                limit: limit, after: after, afterKey: afterKey, referenceOffsetDB: referenceOffsetDB
            ).run()
        }
        if hits != nil { Self.searches.index.increment() }
        return hits
    }

    /// A venue by external id: `.some(nil)` for none; `nil` when the index is not ready.
    func venue(externalID: String) -> Venue?? {
        state.withReadLock { state -> Venue?? in
            guard state.phase == .ready else { return nil }
            guard let slot = state.table.slotByExternalID[externalID] else { return .some(nil) }
            return .some(state.table.venues[Int(slot)]?.venue)
        }
    }

    /// The venue's cell at the venue-local hour of `at` by search's clock: `.some(nil)` for none;
    /// `nil` when the index is not ready or the venue is not held or its zone is unknown here.
    func cell(venueID: Int64, at: Date) -> (index: Int, cell: IndexedVenue.PackedCell)?? {
        state.withReadLock { state -> (index: Int, cell: IndexedVenue.PackedCell)?? in
            guard state.phase == .ready, let slot = state.table.slotByID[venueID],
                let venue = state.table.venues[Int(slot)]
            else { return nil }
            guard let levels = venue.levels, levels.clock >= 0 else { return .some(nil) }
            guard let clock = state.table.clockList[Int(levels.clock)] else { return nil }
            let index = clock.localHour(at: at).hourOfWeek
            return .some(levels.cells[index].map { (index, $0) })
        }
    }

    /// Each venue's cells at a venue-local hour on every weekday, Monday first (`nil` for a day
    /// without a cell; a venue not held, or an hour outside 0–23, has none, as from PostgreSQL);
    /// `nil` when the index is not ready.
    func week(at hours: [(venueID: Int64, hour: Int)]) -> [Int64: [(index: Int, cell: IndexedVenue.PackedCell)?]]? {
        state.withReadLock { state -> [Int64: [(index: Int, cell: IndexedVenue.PackedCell)?]]? in
            guard state.phase == .ready else { return nil }
            var found: [Int64: [(index: Int, cell: IndexedVenue.PackedCell)?]] = [:]
            for (venueID, hour) in hours {
                guard (0..<24).contains(hour), let slot = state.table.slotByID[venueID],
                    let levels = state.table.venues[Int(slot)]?.levels
                else {
                    found[venueID] = Array(repeating: nil, count: 7)
                    continue
                }
                found[venueID] = (0..<7).map { day in
                    let index = day * 24 + hour
                    return levels.cells[index].map { (index, $0) }
                }
            }
            return found
        }
    }

    /// The venues with cells within `radiusMetres` of a point, nearest first (distance, then
    /// id), at most `limit`, as ``VenueSearchRepository/patterns(latitude:longitude:radiusMetres:limit:)``;
    /// `nil` when the index is not ready.
    func patterns(latitude: Double, longitude: Double, radiusMetres: Double, limit: Int) -> [VenuePattern]? {
        state.withReadLock { state -> [VenuePattern]? in
            guard state.phase == .ready else { return nil }
            let table = state.table
            let point = SphereDistance.Point(latitude: latitude, longitude: longitude)
            var found: [(distance: Double, id: Int64, slot: Int32)] = []
            table.forEachWithin(latitude: latitude, longitude: longitude, radiusMetres: radiusMetres) { cell, k in
                let distance = SphereDistance.metres(from: cell.points[k], to: point)
                guard distance <= radiusMetres else { return }
                found.append((distance, cell.ids[k], cell.slots[k]))
            }
            found.sort { ($0.distance, $0.id) < ($1.distance, $1.id) }
            return found.prefix(max(0, limit)).compactMap { entry in
                guard let venue = table.venues[Int(entry.slot)], let levels = venue.levels else { return nil }
                return VenuePattern(
                    venue: venue.venue, checkins: venue.checkins, distanceMetres: entry.distance,
                    overallDBFS: levels.overallDBFS.isNaN ? nil : Double(levels.overallDBFS),
                    measuredLevelsDBFS: (0..<168).map { levels.measured[$0].map(Double.init) })
            }
        }
    }
}

extension VenueTable {
    /// Calls `body` with the grid cell and position of every venue with cells in the box of the
    /// cap of `radiusMetres` around a point (a superset of those within it).
    func forEachWithin(
        latitude: Double, longitude: Double, radiusMetres: Double, _ body: (GridCell, Int) -> Void
    ) {
        let cap = SearchGrid.Cap(latitude: latitude, longitude: longitude, radiusMetres: radiusMetres)
        for cell in grid.cells(touching: cap) {
            guard let gridCell = cells[cell] else { continue }
            for k in gridCell.slots.indices
            where cap.contains(latitude: gridCell.latitudes[k], longitude: gridCell.longitudes[k]) {
                body(gridCell, k)
            }
        }
    }
}
