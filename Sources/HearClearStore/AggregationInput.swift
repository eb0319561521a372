import Foundation

/// What the aggregation worker reads to re-judge one venue: the venue's zone and every check-in.
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
        public var startedAt: Date
        public var offsetsSeconds: [Int32]
        /// One per sample, or a single one shared by all samples.
        public var utcOffsetsMinutes: [Int16]
        public var averageDBFS: [Float]
        public var peakDBFS: [Float]
        /// Reasons given at receipt (e.g. `too_far_from_venue`); they stand at every re-judgement.
        public var receiptReasons: [String]
        /// An admin's standing decision on the check-in (`checkin_overrides`), if any.
        public var adminDecision: AdminDecision? = nil
    }

    /// What an admin forced: `include` in the cells whatever the judgement, or `exclude`.
    public enum AdminDecision: String, Sendable {
        case include, exclude
    }

    public var venueID: Int64
    public var venueExternalID: String
    /// The venue's IANA zone, when known.
    public var timezone: String?
    /// Oldest first.
    public var checkins: [Checkin]
}
