import Foundation
import HearClearModel
import HearClearStore
import LoudnessCore

/// A device as admins see it (CLI and admin pages): the id shortened, never whole, and its bias
/// against the crowd with the flag rule of docs/ARCHITECTURE.md, "Devices and calibration" (``DeviceCalibration``).
public struct DeviceReport: Sendable, Equatable {
    /// The key `hearclear devices exclude|include` takes.
    public let key: Int64
    /// The client id shortened (`c0ff…66`).
    public let shortID: String
    public let model: String?
    public let checkins: Int
    public let lastSeenAt: Date
    public let excluded: Bool
    public let bias: DeviceBias

    /// A stored device as admins see it: the id shortened, the bias against the crowd computed.
    public init(_ summary: DeviceSummary) {
        key = summary.key
        shortID = DeviceIdentity.shortened(summary.clientID)
        model = summary.model
        checkins = summary.checkins
        lastSeenAt = summary.lastSeenAt
        excluded = summary.excluded
        bias = DeviceCalibration.bias(ofResiduals: summary.residualsDB)
    }
}
