/// One check-in's contribution to a cell (venue × local weekday × hour): its hour level in dB.
public struct CellCheckin: Sendable, Equatable {
    /// The check-in's id (the client UUID), echoed in ``CheckinAssessment``.
    public let checkinID: String
    /// The submitting device's id; check-ins of one device are collapsed to one value.
    public let deviceID: String
    /// The check-in's Leq for this hour, calibrated dB (or dBFS; the estimator is unit-agnostic).
    public let levelDB: Double

    /// `init(checkinID:deviceID:levelDB:)`: memberwise.
    public init(checkinID: String, deviceID: String, levelDB: Double) {
        self.checkinID = checkinID
        self.deviceID = deviceID
        self.levelDB = levelDB
    }
}
