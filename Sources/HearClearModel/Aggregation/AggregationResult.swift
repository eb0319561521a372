import Foundation
import LoudnessCore

/// What the aggregation worker writes back for one venue, replacing what was there.
public struct AggregationResult: Sendable, Equatable {
    /// The judgement of one check-in (`checkins.status`, `reasons`, `level_dbfs`, `valid_seconds`).
    public struct Judgement: Sendable, Equatable {
        public var checkinID: UUID
        /// The check-in's `started_at`: which month's partition holds it (migration 0020).
        public var startedAt: Date
        /// `included`, `outlier` or `excluded`.
        public var status: CheckinStatus
        public var reasons: [JudgementReason]
        public var levelDBFS: Double?
        public var validSeconds: Int
        /// Cleaning's own exclusion reason, stored with the cleaning.
        public var cleanExclusion: JudgementReason?
        /// Cleaned in this judgement: its cleaning is stored (`cleaned_at`) and its hour rows replaced.
        public var newlyCleaned: Bool

        public init(
            checkinID: UUID, startedAt: Date, status: CheckinStatus, reasons: [JudgementReason], levelDBFS: Double?,
            validSeconds: Int, cleanExclusion: JudgementReason? = nil, newlyCleaned: Bool = false
        ) {
            self.checkinID = checkinID
            self.startedAt = startedAt
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
        /// The piece's sound character (`character_*`), from its cleaning; nil when the check-in
        /// carries neither LCeq nor bands. Written with the row, never rewritten.
        public var character: PieceCharacter?

        public init(
            checkinID: UUID, deviceKey: Int64, weekday: Int, hour: Int, leqDBFS: Double, l10DBFS: Double,
            l50DBFS: Double, l90DBFS: Double, maxPeakDBFS: Double, validSeconds: Int, modelOffsetDB: Double,
            counted: Bool, outlier: Bool, modifiedZ: Double?, residualDB: Double?, otherDevices: Int,
            character: PieceCharacter? = nil
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
            self.character = character
        }
    }

    /// How the venue's cells are written.
    public enum CellWrite: Sendable, Equatable {
        /// The stored cells were not known: delete them all and insert these (every cell).
        case replaceAll([StoredCell])
        /// Upsert the new and changed cells and delete the cells that have no estimate any more.
        case changes(upserted: [StoredCell], removed: [CellPosition])
    }

    public var venueID: Int64
    /// Check-ins whose judgement is new or changed; the others are left as stored.
    public var judgements: [Judgement]
    /// All hour rows of the newly cleaned check-ins (their old rows, if any, are replaced).
    public var newHours: [Hour]
    /// Hour rows of already cleaned check-ins that need rewriting (``Hour/needsRewrite(from:)``).
    public var changedHours: [Hour]
    public var cells: CellWrite
    /// The newest `received_at` among the check-ins read, for the venue's activity.
    public var lastReceivedAt: Date?
    /// The venue's changes as they are to be stored, when they differ from what is stored (nil:
    /// leave `venue_changes` as it is).
    public var changes: [StoredVenueChange]?
    /// The venue's open campaign as it is to be stored: `.some(nil)` closes an open one, nil leaves
    /// `venue_campaigns` as it is.
    public var campaign: StoredCampaign??

    public init(
        venueID: Int64, judgements: [Judgement], newHours: [Hour], changedHours: [Hour], cells: CellWrite,
        lastReceivedAt: Date? = nil, changes: [StoredVenueChange]? = nil, campaign: StoredCampaign?? = nil
    ) {
        self.venueID = venueID
        self.judgements = judgements
        self.newHours = newHours
        self.changedHours = changedHours
        self.cells = cells
        self.lastReceivedAt = lastReceivedAt
        self.changes = changes
        self.campaign = campaign
    }
}

extension AggregationResult.Hour {
    /// How far a stored z-score may lag the exact one before its row is rewritten (migration
    /// 0005): a check-in joining a busy venue moves the pooled scale and profile, and with them
    /// every piece's z-score a little; rewriting them all each time would cost O(venue) rows per
    /// check-in. Near or past the outlier threshold (|z| ≥ ``exactZ``), where an admin reads it,
    /// the tolerance is ``nearThresholdZTolerance``.
    public static let zTolerance: Double = 0.25
    public static let nearThresholdZTolerance: Double = 0.05
    public static let exactZ: Double = 3
    /// How far a stored residual may lag, in dB (device bias flags at 6 dB, from a median of many).
    public static let residualTolerance: Double = 0.1

    /// The row stored as `previous` must be rewritten to hold this judgement: whether it counts,
    /// is an outlier, its model offset (at `real` precision) or whether other devices are there
    /// at all changed, or its z-score or residual appeared, vanished or moved by its tolerance or
    /// more.
    public func needsRewrite(from previous: Self) -> Bool {
        func moved(_ a: Double?, _ b: Double?, by tolerance: (Double, Double) -> Double) -> Bool {
            switch (a, b) {
            case (nil, nil): false
            case (let a?, let b?): abs(a - b) >= tolerance(a, b)
            default: true
            }
        }
        let zMoved = moved(modifiedZ, previous.modifiedZ) { a, b in
            max(abs(a), abs(b)) >= Self.exactZ ? Self.nearThresholdZTolerance : Self.zTolerance
        }
        return counted != previous.counted || outlier != previous.outlier
            || Float(modelOffsetDB) != Float(previous.modelOffsetDB)
            || (otherDevices == 0) != (previous.otherDevices == 0)
            || zMoved || moved(residualDB, previous.residualDB) { _, _ in Self.residualTolerance }
    }

    /// The row as it reads back from the database: every number at `real` precision.
    public var asStored: Self {
        var row = self
        row.leqDBFS = real(leqDBFS)
        row.l10DBFS = real(l10DBFS)
        row.l50DBFS = real(l50DBFS)
        row.l90DBFS = real(l90DBFS)
        row.maxPeakDBFS = real(maxPeakDBFS)
        row.modelOffsetDB = real(modelOffsetDB)
        row.modifiedZ = modifiedZ.map(real)
        row.residualDB = residualDB.map(real)
        return row
    }
}

extension StoredCell {
    /// The cell as it reads back from the database: every number at `real` precision.
    public var asStored: StoredCell {
        var cell = self
        cell.levelDBFS = real(levelDBFS)
        cell.rangeLowDBFS = real(rangeLowDBFS)
        cell.rangeHighDBFS = real(rangeHighDBFS)
        cell.scaleDB = real(scaleDB)
        cell.character?.lcMinusLaDB = character?.lcMinusLaDB.map(real)
        if let la90 = character?.la90DBFS { cell.character?.la90DBFS = real(la90) }
        return cell
    }
}

/// `value` as it reads back from a `real` column.
private func real(_ value: Double) -> Double { Double(Float(value)) }
