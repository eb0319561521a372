/// A device's residual bias against the crowd, as found by ``DeviceCalibration``.
public struct DeviceBias: Sendable, Equatable {
    /// Median residual (check-in level − cell estimate), dB; `nil` without co-located check-ins.
    /// Positive: the device reads louder than the crowd.
    public let biasDB: Double?
    /// Number of co-located check-ins the bias rests on.
    public let checkinCount: Int
    /// True when |bias| > 6 dB over ≥ 3 co-located check-ins: shown to admins for review.
    public let isFlagged: Bool

    /// `init(biasDB:checkinCount:isFlagged:)`: memberwise.
    public init(biasDB: Double?, checkinCount: Int, isFlagged: Bool) {
        self.biasDB = biasDB
        self.checkinCount = checkinCount
        self.isFlagged = isFlagged
    }
}
