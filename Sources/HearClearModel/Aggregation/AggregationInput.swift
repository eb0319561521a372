import Foundation
import LoudnessCore

/// What the aggregation worker reads to re-judge one venue: the venue's zone and every check-in,
/// either with its raw samples (not cleaned yet) or with the summary of its earlier cleaning.
public struct AggregationInput: Sendable, Equatable {
    /// One stored check-in with what judging it needs from its device.
    public struct Checkin: Sendable, Equatable {
        public var id: UUID
        /// `started_at`: check-ins are judged in time order.
        public var startedAt: Date
        /// `received_at`, for the venue's activity.
        public var receivedAt: Date
        /// The device's key in `devices` (not the client id).
        public var deviceKey: Int64
        /// An admin excluded the device: the check-in is excluded as `device_excluded`.
        public var deviceExcluded: Bool
        /// The offset in force for the device: its model's (`device_model_offsets`) plus its own
        /// deviation (`device_offsets`), 0 without either.
        public var modelOffsetDB: Double
        /// Reasons given at receipt (e.g. `too_far_from_venue`); they stand at every re-judgement.
        public var receiptReasons: [JudgementReason]
        /// The samples, when the check-in has not been cleaned yet.
        public var raw: Raw?
        /// What the last judgement stored, when the check-in has been cleaned.
        public var stored: Stored?
        /// An admin's standing decision on the check-in (`checkin_overrides`), if any.
        public var adminDecision: AdminDecision?
        /// The device's trust (`device_trust`), nil before the crowd has judged it (a fresh
        /// device: ``DeviceTrust/floor``).
        public var deviceTrust: Double?
        /// Venues the device has checked in at, as the last fit counted them; nil before one.
        public var deviceVenues: Int?

        public init(
            id: UUID, startedAt: Date, receivedAt: Date, deviceKey: Int64, deviceExcluded: Bool, modelOffsetDB: Double,
            receiptReasons: [JudgementReason],
            raw: Raw?, stored: Stored?, adminDecision: AdminDecision? = nil, deviceTrust: Double? = nil,
            deviceVenues: Int? = nil
        ) {
            self.id = id
            self.startedAt = startedAt
            self.receivedAt = receivedAt
            self.deviceKey = deviceKey
            self.deviceExcluded = deviceExcluded
            self.modelOffsetDB = modelOffsetDB
            self.receiptReasons = receiptReasons
            self.raw = raw
            self.stored = stored
            self.adminDecision = adminDecision
            self.deviceTrust = deviceTrust
            self.deviceVenues = deviceVenues
        }
    }

    /// What an admin forced: `include` in the cells whatever the judgement, or `exclude`.
    public typealias AdminDecision = HearClearModel.AdminDecision

    /// The samples; they start at the check-in's ``Checkin/startedAt``.
    public struct Raw: Sendable, Equatable {
        public var offsetsSeconds: [Int32]
        /// One per sample, or a single one shared by all samples.
        public var utcOffsetsMinutes: [Int16]
        public var averageDBFS: [Float]
        public var peakDBFS: [Float]
        /// LCeq and band levels as stored (0.1 dB; see ``CheckinSubmission``), nil for none.
        public var lceqDdB: [Int16]?
        public var bandIndexes: [Int16]?
        public var bandsDdB: [Int16]?
        /// The phone's own classes as pooling needs them (`class_window_*`), nil for none.
        public var phoneClasses: PhoneClassWindows?

        public init(
            offsetsSeconds: [Int32], utcOffsetsMinutes: [Int16], averageDBFS: [Float],
            peakDBFS: [Float], lceqDdB: [Int16]? = nil, bandIndexes: [Int16]? = nil, bandsDdB: [Int16]? = nil,
            phoneClasses: PhoneClassWindows? = nil
        ) {
            self.offsetsSeconds = offsetsSeconds
            self.utcOffsetsMinutes = utcOffsetsMinutes
            self.averageDBFS = averageDBFS
            self.peakDBFS = peakDBFS
            self.lceqDdB = lceqDdB
            self.bandIndexes = bandIndexes
            self.bandsDdB = bandsDdB
            self.phoneClasses = phoneClasses
        }
    }

    /// The stored judgement of a cleaned check-in: its cleaning (exclusion, valid seconds,
    /// level, hour rows) and what was decided from it, to write back only what changes.
    public struct Stored: Sendable, Equatable {
        public var cleanExclusion: JudgementReason?
        public var validSeconds: Int
        public var levelDBFS: Double?
        public var status: CheckinStatus
        public var reasons: [JudgementReason]
        public var hours: [AggregationResult.Hour]

        public init(
            cleanExclusion: JudgementReason?, validSeconds: Int, levelDBFS: Double?, status: CheckinStatus,
            reasons: [JudgementReason],
            hours: [AggregationResult.Hour]
        ) {
            self.cleanExclusion = cleanExclusion
            self.validSeconds = validSeconds
            self.levelDBFS = levelDBFS
            self.status = status
            self.reasons = reasons
            self.hours = hours
        }
    }

    public var venueID: Int64
    /// The venue's IANA zone, when known.
    public var timezone: String?
    /// Oldest first (``Checkin/isBefore(_:)``).
    public var checkins: [Checkin]
    /// The venue's cells as stored, when known (from the worker's memory); `nil` after a read
    /// from the database, and then all cells are rewritten.
    public var storedCells: [StoredCell]?
    /// The venue's changes as stored (`venue_changes`): earlier detections, the admin's
    /// dismissals, withdrawals.
    public var changes: [StoredVenueChange]
    /// The venue's campaigns as stored (`venue_campaigns`) that are open or dismissed: the
    /// devices of a dismissed one are no suspects again.
    public var campaigns: [StoredCampaign]

    /// The devices (their ids as the judge knows them) of the campaigns an admin dismissed: no
    /// suspects again.
    public var dismissedCampaignDevices: Set<String> {
        Set(campaigns.filter { $0.status == .dismissed }.flatMap(\.devices).map(String.init))
    }

    public init(
        venueID: Int64, timezone: String?, checkins: [Checkin],
        storedCells: [StoredCell]? = nil, changes: [StoredVenueChange] = [], campaigns: [StoredCampaign] = []
    ) {
        self.venueID = venueID
        self.timezone = timezone
        self.checkins = checkins
        self.storedCells = storedCells
        self.changes = changes
        self.campaigns = campaigns
    }

    /// The venue with `newer` check-ins read since: each replaces the one with its id (a check-in
    /// whose cleaning was forgotten comes back raw) or joins in time order.
    public func adding(_ newer: [Checkin]) -> AggregationInput {
        guard !newer.isEmpty else { return self }
        let replaced = Set(newer.map(\.id))
        var merged = checkins.filter { !replaced.contains($0.id) }
        merged += newer
        merged.sort { $0.isBefore($1) }
        var input = self
        input.checkins = merged
        return input
    }
}

extension AggregationInput.Checkin {
    /// The database's order, `ORDER BY started_at, id` (a uuid compares as its 16 bytes).
    public func isBefore(_ other: Self) -> Bool {
        if startedAt != other.startedAt { return startedAt < other.startedAt }
        let a = id.uuid
        let b = other.id.uuid
        return withUnsafeBytes(of: a) { left in
            withUnsafeBytes(of: b) { right in left.lexicographicallyPrecedes(right) }
        }
    }
}
