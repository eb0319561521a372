import Foundation
import HearClearModel
import HearClearStore
import Logging
import LoudnessCore
import PostgresNIO

/// What people read, from stored rows only: cells in calibrated dB (model-corrected dBFS + the
/// reference offset, rounded to 0.1 dB) labelled with the bands in the database *now*, so a band
/// change shows in the next response (docs/ARCHITECTURE.md, "Bands and labels"). v1, v2 and the
/// admin all read and label through here, so they agree.
public struct LoudnessReads: Sendable {
    /// Venues, cells and bands are read here (a replica when there is one).
    let database: ReadDatabase
    /// The stores of each side of ``database``, made once.
    private let primary: Stores
    private let replica: Stores?
    /// Check-ins are read from the primary: a client reads its own check-in right after sending it.
    let checkins: CheckinRepository
    /// Calibrated dB = dBFS + model offset + this (`--reference-offset-db`).
    public let referenceOffsetDB: Double
    let logger: Logger

    /// What reads read, over one database.
    private struct Stores: Sendable {
        let venues: VenueRepository
        let loudness: LoudnessRepository
        let bands: BandRepository

        init(client: PostgresClient, cache: IngestCache, logger: Logger) {
            venues = VenueRepository(client: client, logger: logger, cache: cache)
            loudness = LoudnessRepository(client: client, logger: logger)
            bands = BandRepository(client: client, logger: logger)
        }
    }

    /// - Parameter cache: the ingest cache the primary's venue store shares with ingest.
    init(
        database: ReadDatabase, checkins: CheckinRepository, cache: IngestCache, referenceOffsetDB: Double,
        logger: Logger
    ) {
        self.database = database
        primary = Stores(client: database.primary, cache: cache, logger: logger)
        replica = database.replica.map { Stores(client: $0, cache: IngestCache(), logger: logger) }
        self.checkins = checkins
        self.referenceOffsetDB = referenceOffsetDB
        self.logger = logger
    }

    private func stores(_ side: ReadDatabase.Side) -> Stores {
        side == .replica ? replica ?? primary : primary
    }

    /// The venue, read where reads go (a venue the replica has not replayed yet, on the primary);
    /// the engine's own: outside it, `VenueDirectory.find(externalID:)` is the one door.
    func venue(externalID: String) async throws -> Venue? {
        try await database.find { [self] in try await stores($0).venues.find(externalID: externalID) }
    }

    /// How many check-ins the venue has, in all (outside the engine: `VenueDirectory.checkinCount`).
    func checkinCount(venueID: Int64) async throws -> Int {
        try await database.read { [self] in try await stores($0).venues.checkinCount(venueID: venueID) }
    }

    private func storedCells(venueID: Int64) async throws -> [StoredCell] {
        try await database.read { [self] in try await stores($0).loudness.cells(venueID: venueID) }
    }

    /// One cell as reported: calibrated levels rounded to 0.1 dB; the label is of the rounded level.
    public struct Cell: Sendable, Equatable {
        public var localHour: LocalHour
        public var levelDB: Double
        /// The calibrated level before rounding, for the overall median.
        var unroundedLevelDB: Double
        public var rangeDB: ClosedRange<Double>
        public var label: String
        public var checkins: Int
        public var devices: Int
        public var confidence: String
        /// What an estimated cell rests on; `nil` for a cell measured by check-ins.
        public var basis: PatternEstimate.Basis?
        /// What kind of loud the cell is, when enough of its check-ins carried LCeq or bands;
        /// never for an estimate. v2 only.
        public var character: Character? = nil

        /// Predicted from other hours or venues, not measured: never shown to `/api/v1`.
        public var estimated: Bool { basis != nil }
    }

    /// A cell's sound character as reported (docs/ARCHITECTURE.md, "Sound character").
    public struct Character: Sendable, Equatable {
        /// Share of the seconds in windows of each label, rounded to 0.01 (every label present).
        public var shares: [SoundClass: Double]
        /// Median LC − LA of the seconds, dB rounded to 0.1; nil when none carried LCeq.
        public var lcMinusLaDB: Double?
        /// LA90 of the seconds in calibrated dB (model and reference offsets), rounded to 0.1.
        public var la90DB: Double
        /// How hard talking is at the cell's (rounded, calibrated) level.
        public var conversation: ConversationBand
        public var seconds: Int
        public var checkins: Int
        /// What the classes rest on (docs/ARCHITECTURE.md, "The phone's own classes").
        public var basis: CharacterBasis = .spectraRules
    }

    /// A venue's weekday × hour grid with the bands it was labelled with.
    public struct Grid: Sendable, Equatable {
        public var venue: Venue
        public var bands: Bands
        /// Monday 0:00 first; empty while the venue has no usable data.
        public var cells: [Cell]
        /// When the venue's change in force began (docs/ARCHITECTURE.md, "Venues that change").
        public var changedAt: Date? = nil
    }

    /// The bands in force; the defaults if the table holds an invalid set (logged).
    public func currentBands() async throws -> Bands {
        let stored = try await database.read { [self] in try await stores($0).bands.current() }
        do {
            return try Self.bands(stored)
        } catch {
            logger.error("bands in the database are invalid; using the defaults", metadata: ["error": "\(error)"])
            return .standard
        }
    }

    /// Stored bands as a validated set.
    public static func bands(_ stored: [StoredBand]) throws -> Bands {
        try Bands(stored.map { Band(label: $0.label, belowDB: $0.belowDB) })
    }

    /// The venue's grid, labelled with `bands`; `nil` for an unknown venue.
    public func grid(externalID: String, bands: Bands) async throws -> Grid? {
        guard let venue = try await venue(externalID: externalID) else { return nil }
        async let changedAt = changedAt(venueID: venue.id)
        let cells = try await cells(venueID: venue.id, bands: bands)
        return Grid(venue: venue, bands: bands, cells: cells, changedAt: try await changedAt)
    }

    /// The stored cells of each venue at its venue-local hour on every weekday, read on `side`.
    func cellsOfHours(_ hours: [(venueID: Int64, hour: Int)], side: ReadDatabase.Side) async throws
        -> [(venueID: Int64, cell: StoredCell)]
    {
        try await stores(side).loudness.cells(at: hours)
    }

    /// A venue's grid with its check-in count: what its page shows.
    public struct Sheet: Sendable {
        public var grid: Grid
        public var checkins: Int
    }

    /// The grid and check-in count of the venue, read in one round trip; `nil` for an unknown venue.
    public func sheet(externalID: String, bands: Bands) async throws -> Sheet? {
        guard
            let found = try await database.find({ [self] in try await stores($0).venues.sheet(externalID: externalID) })
        else { return nil }
        return Sheet(
            grid: Grid(venue: found.venue, bands: bands, cells: found.cells.map { cell($0, bands: bands) }),
            checkins: found.checkins)
    }

    /// When the venue's change in force began, nil when none is (docs/ARCHITECTURE.md, "Venues
    /// that change").
    public func changedAt(venueID: Int64) async throws -> Date? {
        try await database.read { [self] in try await stores($0).loudness.changedAt(venueID: venueID) }
    }

    /// The venue's cells, Monday 0:00 first.
    public func cells(venueID: Int64, bands: Bands) async throws -> [Cell] {
        try await storedCells(venueID: venueID).map { cell($0, bands: bands) }
    }

    /// A stored cell as reported, labelled with `bands`.
    public func cell(_ cell: StoredCell, bands: Bands) -> Cell {
        self.cell(
            localHour: LocalHour(weekday: cell.weekday, hour: cell.hour), levelDBFS: cell.levelDBFS,
            rangeDBFS: (cell.rangeLowDBFS, cell.rangeHighDBFS), checkins: cell.checkins, devices: cell.devices,
            confidence: cell.confidence, basis: cell.basis, character: cell.character, bands: bands)
    }

    /// A cell's stored values as reported, labelled with `bands` (the search index keeps only these).
    func cell(
        localHour: LocalHour, levelDBFS: Double, rangeDBFS: (low: Double, high: Double), checkins: Int, devices: Int,
        confidence: String, basis: PatternEstimate.Basis?, character stored: CellCharacter? = nil, bands: Bands
    ) -> Cell {
        let level = Self.rounded(levelDBFS + referenceOffsetDB)
        return Cell(
            localHour: localHour, levelDB: level, unroundedLevelDB: levelDBFS + referenceOffsetDB,
            rangeDB: Self.rounded(rangeDBFS.low + referenceOffsetDB)...Self.rounded(rangeDBFS.high + referenceOffsetDB),
            label: Self.label(ofCalibratedDB: level, bands: bands), checkins: checkins, devices: devices,
            confidence: confidence, basis: basis, character: stored.map { character($0, levelDB: level) })
    }

    /// A stored character as reported beside a cell of calibrated (rounded) level `levelDB`.
    func character(_ stored: CellCharacter, levelDB: Double) -> Character {
        Character(
            shares: Dictionary(
                uniqueKeysWithValues: SoundClass.allCases.map { ($0, (stored.share(of: $0) * 100).rounded() / 100) }),
            lcMinusLaDB: stored.lcMinusLaDB.map(Self.rounded),
            la90DB: Self.rounded(stored.la90DBFS + referenceOffsetDB),
            conversation: ConversationBand(calibratedDB: levelDB), seconds: stored.seconds, checkins: stored.checkins,
            basis: stored.basis)
    }

    /// The venue's overall level: the median of its measured cells' calibrated levels (each
    /// weekday-hour with data counts once, so a venue is not judged by its busiest hour alone;
    /// estimates do not count), rounded, with its label; `nil` without measured cells. Search
    /// takes the same median in PostgreSQL (`venue_levels.overall_dbfs`) of the same stored values.
    public static func overall(_ cells: [Cell], bands: Bands) -> (levelDB: Double, label: String)? {
        guard let level = overallLevel(cells) else { return nil }
        return (level, label(ofCalibratedDB: level, bands: bands))
    }

    /// The overall level alone (no bands to read), as ``overall(_:bands:)`` computes it.
    public func overallLevel(venueID: Int64) async throws -> Double? {
        Self.overallLevel(
            try await storedCells(venueID: venueID).filter { !$0.estimated }.map { $0.levelDBFS + referenceOffsetDB })
    }

    private static func overallLevel(_ cells: [Cell]) -> Double? {
        overallLevel(cells.filter { !$0.estimated }.map(\.unroundedLevelDB))
    }

    /// The rounded median of measured cells' calibrated levels.
    private static func overallLevel(_ calibratedLevels: [Double]) -> Double? {
        RobustStatistics.median(calibratedLevels).map(rounded)
    }

    /// How many of the venue's check-ins are currently `included` in its cells.
    public func includedCheckinCount(venueID: Int64) async throws -> Int {
        try await database.read { [self] in try await stores($0).loudness.includedCheckinCount(venueID: venueID) }
    }

    /// The check-in as stored, from the primary; `nil` when unknown.
    public func storedCheckin(id: UUID) async throws -> StoredCheckin? {
        try await checkins.find(id: id)
    }

    /// The check-in with its calibrated level and label once judged (with the bands `bands`
    /// gives, asked only then); `nil` when unknown.
    public func checkin(id: UUID, bands: () async throws -> Bands) async throws -> JudgedCheckin? {
        guard let checkin = try await storedCheckin(id: id) else { return nil }
        var judged = JudgedCheckin(checkin: checkin)
        if let levelDBFS = checkin.levelDBFS, checkin.status != .pending {
            let level = calibratedDB(
                levelDBFS: Double(levelDBFS), modelOffsetDB: try await modelOffsetDB(model: checkin.deviceModel))
            judged.levelDB = level
            judged.label = Self.label(ofCalibratedDB: level, bands: try await bands())
        }
        return judged
    }

    /// The calibration offset of a device model (0 when it has none or no model is known).
    public func modelOffsetDB(model: String?) async throws -> Double {
        try await database.read { [self] in try await stores($0).loudness.modelOffsetDB(model: model) }
    }

    /// Calibrated dB of a check-in's raw dBFS level and the device model's offset.
    public func calibratedDB(levelDBFS: Double, modelOffsetDB: Double) -> Double {
        Self.rounded(
            CalibrationOffsets(deviceModelOffsetDB: modelOffsetDB, referenceOffsetDB: referenceOffsetDB)
                .calibratedDB(fromDBFS: levelDBFS))
    }

    /// The one labelling rule of v1 and v2.
    public static func label(ofCalibratedDB levelDB: Double, bands: Bands) -> String {
        bands.label(for: levelDB)
    }

    /// Rounded to 0.1 dB, as reported.
    public static func rounded(_ value: Double) -> Double {
        (value * 10).rounded() / 10
    }
}

extension JudgedCheckin {
    init(checkin: StoredCheckin) {
        self.init(checkin: checkin, levelDB: nil, label: nil)
    }
}
