/// What a venue's judgement knows of a device beyond the venue (docs/ARCHITECTURE.md, "Devices
/// that earn trust"): how far the crowd trusts it and whether it is new or checks in elsewhere.
public struct DeviceStanding: Sendable, Equatable {
    /// The device's trust, ``DeviceTrust/floor``…1: 1 for a device whose check-ins have agreed
    /// with the crowd's often enough, the floor for one never seen agreeing (a fresh id).
    public var trust: Double
    /// The device has earned full trust (``DeviceTrust``): not new.
    public var established: Bool
    /// When the device was first seen, seconds since 1970; `nil` when unknown.
    public var firstSeenAt: Double?
    /// The device has checked in at another venue too.
    public var checksInElsewhere: Bool

    /// `init(trust:established:firstSeenAt:checksInElsewhere:)`: by default a device as trusted
    /// as any (so a judgement without trust data weighs every device alike).
    public init(trust: Double = 1, established: Bool = true, firstSeenAt: Double? = nil, checksInElsewhere: Bool = true)
    {
        self.trust = trust
        self.established = established
        self.firstSeenAt = firstSeenAt
        self.checksInElsewhere = checksInElsewhere
    }
}
