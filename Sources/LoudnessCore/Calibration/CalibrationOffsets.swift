/// Turns dBFS into calibrated dB: `calibrated = dBFS + device-model offset + reference offset`.
public struct CalibrationOffsets: Sendable, Equatable, Codable {
    /// Offset of the device model (admin table or crowd calibration), dB.
    public var deviceModelOffsetDB: Double
    /// Reference offset from configuration (an assumption until calibrated), dB.
    public var referenceOffsetDB: Double

    /// `init(deviceModelOffsetDB:referenceOffsetDB:)`: memberwise; both default to 0.
    public init(deviceModelOffsetDB: Double = 0, referenceOffsetDB: Double = 0) {
        self.deviceModelOffsetDB = deviceModelOffsetDB
        self.referenceOffsetDB = referenceOffsetDB
    }

    /// `calibratedDB(fromDBFS:)`: `levelDBFS + deviceModelOffsetDB + referenceOffsetDB`.
    public func calibratedDB(fromDBFS levelDBFS: Double) -> Double {
        levelDBFS + deviceModelOffsetDB + referenceOffsetDB
    }
}
