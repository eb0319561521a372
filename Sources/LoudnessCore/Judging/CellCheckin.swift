/// One check-in's contribution to a cell (venue × local weekday × hour): its hour level in dB.
public struct CellCheckin: Sendable, Equatable {
    /// The check-in's id (the client UUID), echoed in ``CheckinAssessment``.
    public let checkinID: String
    /// The submitting device's id; check-ins of one device are collapsed to one value.
    public let deviceID: String
    /// The check-in's Leq for this hour, calibrated dB (or dBFS; the estimator is unit-agnostic).
    public let levelDB: Double
    /// What the check-in weighs, 0…1: its device's trust relative to the venue's, its recency and,
    /// made before a change of the venue, how little the old level says of the new
    /// (docs/ARCHITECTURE.md, "What a check-in weighs"). 1 for every check-in weighs all alike.
    public let weight: Double

    /// `init(checkinID:deviceID:levelDB:weight:)`: memberwise; the weight is clamped to 0…1.
    public init(checkinID: String, deviceID: String, levelDB: Double, weight: Double = 1) {
        self.checkinID = checkinID
        self.deviceID = deviceID
        self.levelDB = levelDB
        self.weight = min(max(weight, 0), 1)
    }
}
