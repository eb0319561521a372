import Foundation

/// A device as the admin sees it. `clientID` is whole here: shorten it before showing it.
public struct DeviceSummary: Sendable, Equatable {
    /// The device's key in `devices`; what `hearclear devices exclude` takes.
    public var key: Int64
    public var clientID: String
    public var model: String?
    public var checkins: Int
    public var lastSeenAt: Date
    public var excluded: Bool
    public var excludedAt: Date?
    public var note: String?
    /// Per check-in mean residual against its cells estimated from other devices (dB), for the
    /// check-ins that shared a cell with another device.
    public var residualsDB: [Double]

    public init(
        key: Int64, clientID: String, model: String? = nil, checkins: Int, lastSeenAt: Date, excluded: Bool,
        excludedAt: Date? = nil, note: String? = nil, residualsDB: [Double]
    ) {
        self.key = key
        self.clientID = clientID
        self.model = model
        self.checkins = checkins
        self.lastSeenAt = lastSeenAt
        self.excluded = excluded
        self.excludedAt = excludedAt
        self.note = note
        self.residualsDB = residualsDB
    }
}
