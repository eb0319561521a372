import Foundation

/// What the aggregation worker writes back for one venue, replacing what was there.
public struct AggregationResult: Sendable, Equatable {
    /// The judgement of one check-in (`checkins.status`, `reasons`, `level_dbfs`, `valid_seconds`).
    public struct Judgement: Sendable, Equatable {
        public var checkinID: UUID
        /// `included`, `outlier` or `excluded`.
        public var status: String
        /// Machine-readable identifiers (letters, digits and `_`).
        public var reasons: [String]
        public var levelDBFS: Double?
        public var validSeconds: Int
        /// Cleaning's own exclusion reason, stored with the cleaning.
        public var cleanExclusion: String?
        /// Cleaned in this judgement: its cleaning is stored (`cleaned_at`) and its hour rows replaced.
        public var newlyCleaned: Bool

        public init(
            checkinID: UUID, status: String, reasons: [String], levelDBFS: Double?, validSeconds: Int,
            cleanExclusion: String? = nil, newlyCleaned: Bool = false
        ) {
            self.checkinID = checkinID
            self.status = status
            self.reasons = reasons
            self.levelDBFS = levelDBFS
            self.validSeconds = validSeconds
            self.cleanExclusion = cleanExclusion
            self.newlyCleaned = newlyCleaned
        }
    }

    /// One row of `checkin_hours`.
    public struct Hour: Sendable, Equatable {
        public var checkinID: UUID
        public var deviceKey: Int64
        /// ISO weekday, 1 = Monday … 7 = Sunday.
        public var weekday: Int
        public var hour: Int
        public var leqDBFS: Double
        public var l10DBFS: Double
        public var l50DBFS: Double
        public var l90DBFS: Double
        public var maxPeakDBFS: Double
        public var validSeconds: Int
        public var modelOffsetDB: Double
        public var counted: Bool
        public var outlier: Bool
        public var modifiedZ: Double?
        public var residualDB: Double?
        public var otherDevices: Int

        public init(
            checkinID: UUID, deviceKey: Int64, weekday: Int, hour: Int, leqDBFS: Double, l10DBFS: Double,
            l50DBFS: Double, l90DBFS: Double, maxPeakDBFS: Double, validSeconds: Int, modelOffsetDB: Double,
            counted: Bool, outlier: Bool, modifiedZ: Double?, residualDB: Double?, otherDevices: Int
        ) {
            self.checkinID = checkinID
            self.deviceKey = deviceKey
            self.weekday = weekday
            self.hour = hour
            self.leqDBFS = leqDBFS
            self.l10DBFS = l10DBFS
            self.l50DBFS = l50DBFS
            self.l90DBFS = l90DBFS
            self.maxPeakDBFS = maxPeakDBFS
            self.validSeconds = validSeconds
            self.modelOffsetDB = modelOffsetDB
            self.counted = counted
            self.outlier = outlier
            self.modifiedZ = modifiedZ
            self.residualDB = residualDB
            self.otherDevices = otherDevices
        }
    }

    public var venueID: Int64
    /// Check-ins whose judgement is new or changed; the others are left as stored.
    public var judgements: [Judgement]
    /// All hour rows of the newly cleaned check-ins (their old rows, if any, are replaced).
    public var newHours: [Hour]
    /// Hour rows of already cleaned check-ins whose judged fields changed.
    public var changedHours: [Hour]
    /// Every cell of the venue.
    public var cells: [StoredCell]

    public init(venueID: Int64, judgements: [Judgement], newHours: [Hour], changedHours: [Hour], cells: [StoredCell]) {
        self.venueID = venueID
        self.judgements = judgements
        self.newHours = newHours
        self.changedHours = changedHours
        self.cells = cells
    }
}
