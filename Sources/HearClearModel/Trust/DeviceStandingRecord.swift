import Foundation

/// A device's trust and calibration as the last crowd fit left them (docs/ARCHITECTURE.md,
/// "Devices that earn trust", "Phones that drift").
public struct DeviceStandingRecord: Sendable, Equatable {
    /// The device's key (`devices.id`).
    public var device: Int64
    public var model: String?
    /// Its trust (the floor when the crowd has not judged it yet), and what it rests on.
    public var trust: Double
    public var agreements: Double
    public var recentDisagreements: Int
    public var checkins: Int
    /// Venues it checked in at (1 before a fit counted them).
    public var venues: Int
    /// Its own offset from `since` (nil: no step), and before; nil without one.
    public var offsetDB: Double?
    public var earlierOffsetDB: Double?
    public var since: Date?
    /// Its latest step: how far, and when the fit flagged it.
    public var stepDB: Double?
    public var stepDetectedAt: Date?

    public init(
        device: Int64, model: String?, trust: Double, agreements: Double, recentDisagreements: Int, checkins: Int,
        venues: Int, offsetDB: Double? = nil, earlierOffsetDB: Double? = nil, since: Date? = nil, stepDB: Double? = nil,
        stepDetectedAt: Date? = nil
    ) {
        self.device = device
        self.model = model
        self.trust = trust
        self.agreements = agreements
        self.recentDisagreements = recentDisagreements
        self.checkins = checkins
        self.venues = venues
        self.offsetDB = offsetDB
        self.earlierOffsetDB = earlierOffsetDB
        self.since = since
        self.stepDB = stepDB
        self.stepDetectedAt = stepDetectedAt
    }
}
