import Foundation

/// A device's row as stored: its keyed id, model, when it was seen, whether it is excluded, and
/// its calibration against its model when a fit gave it one.
public struct StoredDevice: Sendable, Equatable {
    public struct Calibration: Sendable, Equatable {
        public var offsetDB: Double
        public var standardErrorDB: Double?
        /// Check-ins the offset rests on.
        public var checkins: Int

        public init(offsetDB: Double, standardErrorDB: Double?, checkins: Int) {
            self.offsetDB = offsetDB
            self.standardErrorDB = standardErrorDB
            self.checkins = checkins
        }
    }

    public var key: Int64
    /// The keyed id (docs/PRIVACY.md), never the id the phone sent.
    public var clientID: String
    public var model: String?
    public var firstSeenAt: Date
    public var lastSeenAt: Date
    public var excluded: Bool
    public var excludedAt: Date?
    public var calibration: Calibration?

    public init(
        key: Int64, clientID: String, model: String?, firstSeenAt: Date, lastSeenAt: Date, excluded: Bool,
        excludedAt: Date?, calibration: Calibration?
    ) {
        self.key = key
        self.clientID = clientID
        self.model = model
        self.firstSeenAt = firstSeenAt
        self.lastSeenAt = lastSeenAt
        self.excluded = excluded
        self.excludedAt = excludedAt
        self.calibration = calibration
    }
}

/// What erasing a device removed.
public struct DeviceErasureSummary: Sendable, Equatable {
    public var checkins: Int
    public var reports: Int
    /// Whether it had a calibration offset.
    public var calibration: Bool
    /// Venues queued to be judged again without it.
    public var venues: Int

    public init(checkins: Int, reports: Int, calibration: Bool, venues: Int) {
        self.checkins = checkins
        self.reports = reports
        self.calibration = calibration
        self.venues = venues
    }
}
