/// A device's residual bias against cell estimates, and whether admins should look at it.
public enum DeviceCalibration {
    /// |bias| above this flags the device. 6 dB (docs/ARCHITECTURE.md, "Devices and calibration").
    public static let flagThresholdDB: Double = 6
    /// Fewest co-located check-ins before a device can be flagged. 3 (docs/ARCHITECTURE.md, "Devices and calibration").
    public static let minimumCheckins = 3

    /// `bias(of:)`: the median of `levelDB − cellEstimateDB` over the check-ins that share their
    /// cell with at least one other device (the median, so one odd evening does not make a bias);
    /// flagged when |bias| > 6 dB and at least 3 such check-ins. Pure: no side effects.
    public static func bias(of checkins: [CoLocatedCheckin]) -> DeviceBias {
        bias(ofResiduals: checkins.filter { $0.otherDeviceCount > 0 }.map(\.residualDB))
    }

    /// `bias(ofResiduals:)`: the same rule over residuals already taken against other devices
    /// (as `checkin_hours` stores them).
    public static func bias(ofResiduals residuals: [Double]) -> DeviceBias {
        let bias = RobustStatistics.median(residuals)
        let flagged = residuals.count >= minimumCheckins && abs(bias ?? 0) > flagThresholdDB
        return DeviceBias(biasDB: bias, checkinCount: residuals.count, isFlagged: flagged)
    }
}
