/// One of a device's check-ins set against the estimate of the cell it contributed to.
public struct CoLocatedCheckin: Sendable, Equatable {
    /// The check-in's hour level, dB (same unit as the estimate).
    public let levelDB: Double
    /// The cell's estimate, dB. Preferably computed without this device, so that its own value
    /// does not pull the estimate towards it and hide its bias.
    public let cellEstimateDB: Double
    /// Number of *other* devices in that cell. Check-ins with none are not co-located and are
    /// ignored by ``DeviceCalibration``.
    public let otherDeviceCount: Int

    /// `residualDB`: `levelDB − cellEstimateDB`.
    public var residualDB: Double { levelDB - cellEstimateDB }

    /// `init(levelDB:cellEstimateDB:otherDeviceCount:)`: memberwise.
    public init(levelDB: Double, cellEstimateDB: Double, otherDeviceCount: Int) {
        self.levelDB = levelDB
        self.cellEstimateDB = cellEstimateDB
        self.otherDeviceCount = otherDeviceCount
    }
}
