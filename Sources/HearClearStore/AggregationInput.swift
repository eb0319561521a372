import Foundation

/// What the aggregation worker reads to re-judge one venue: the venue's zone and every check-in,
/// either with its raw samples (not cleaned yet) or with the summary of its earlier cleaning.
public struct AggregationInput: Sendable, Equatable {
    /// One stored check-in with what judging it needs from its device.
    public struct Checkin: Sendable, Equatable {
        public var id: UUID
        /// The device's key in `devices` (not the client id).
        public var deviceKey: Int64
        /// An admin excluded the device: the check-in is excluded as `device_excluded`.
        public var deviceExcluded: Bool
        /// `device_model_offsets.offset_db` of the device's model, 0 when it has none.
        public var modelOffsetDB: Double
        /// Reasons given at receipt (e.g. `too_far_from_venue`); they stand at every re-judgement.
        public var receiptReasons: [String]
        /// The samples, when the check-in has not been cleaned yet.
        public var raw: Raw?
        /// What the last judgement stored, when the check-in has been cleaned.
        public var stored: Stored?
        /// An admin's standing decision on the check-in (`checkin_overrides`), if any.
        public var adminDecision: AdminDecision?

        public init(
            id: UUID, deviceKey: Int64, deviceExcluded: Bool, modelOffsetDB: Double, receiptReasons: [String],
            raw: Raw?, stored: Stored?, adminDecision: AdminDecision? = nil
        ) {
            self.id = id
            self.deviceKey = deviceKey
            self.deviceExcluded = deviceExcluded
            self.modelOffsetDB = modelOffsetDB
            self.receiptReasons = receiptReasons
            self.raw = raw
            self.stored = stored
            self.adminDecision = adminDecision
        }
    }

    /// What an admin forced: `include` in the cells whatever the judgement, or `exclude`.
    public enum AdminDecision: String, Sendable {
        case include, exclude
    }

    public struct Raw: Sendable, Equatable {
        public var startedAt: Date
        public var offsetsSeconds: [Int32]
        /// One per sample, or a single one shared by all samples.
        public var utcOffsetsMinutes: [Int16]
        public var averageDBFS: [Float]
        public var peakDBFS: [Float]

        public init(
            startedAt: Date, offsetsSeconds: [Int32], utcOffsetsMinutes: [Int16], averageDBFS: [Float],
            peakDBFS: [Float]
        ) {
            self.startedAt = startedAt
            self.offsetsSeconds = offsetsSeconds
            self.utcOffsetsMinutes = utcOffsetsMinutes
            self.averageDBFS = averageDBFS
            self.peakDBFS = peakDBFS
        }
    }

    /// The stored judgement of a cleaned check-in: its cleaning (exclusion, valid seconds,
    /// level, hour rows) and what was decided from it, to write back only what changes.
    public struct Stored: Sendable, Equatable {
        public var cleanExclusion: String?
        public var validSeconds: Int
        public var levelDBFS: Double?
        public var status: String
        public var reasons: [String]
        public var hours: [AggregationResult.Hour]

        public init(
            cleanExclusion: String?, validSeconds: Int, levelDBFS: Double?, status: String, reasons: [String],
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
    public var venueExternalID: String
    /// The venue's IANA zone, when known.
    public var timezone: String?
    /// Oldest first.
    public var checkins: [Checkin]

    public init(venueID: Int64, venueExternalID: String, timezone: String?, checkins: [Checkin]) {
        self.venueID = venueID
        self.venueExternalID = venueExternalID
        self.timezone = timezone
        self.checkins = checkins
    }
}
