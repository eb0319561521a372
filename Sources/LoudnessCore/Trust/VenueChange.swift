/// A lasting change in a venue's level, as ``VenueChangeDetector`` found it (docs/ARCHITECTURE.md,
/// "Venues that change"): a new sound system, a DJ after 22:00.
public struct VenueChange: Sendable, Equatable {
    /// What the judgement makes of a change.
    public enum Status: String, Sendable, Equatable, Codable {
        /// Its check-ins since show the shift: the venue's cells are built from after it.
        case inForce = "in_force"
        /// An admin said it was none: the venue is judged as if it had not been detected.
        case dismissed
        /// Its check-ins since no longer show a shift: a false alarm, ignored.
        case withdrawn
    }

    /// When the venue changed: the start of its first check-in after the change, seconds since 1970.
    public var changedAt: Double
    /// When it was first detected: the start of the latest check-in the judgement that raised it
    /// held, seconds since 1970.
    public var detectedAt: Double
    /// The shift at each venue-local hour 0…23, dB: 0 where the hour did not change (or has no
    /// check-ins either side).
    public var shiftsDB: [Double]
    /// The shift over all hours: the weighted median of the residuals since, dB.
    public var shiftDB: Double
    /// Check-ins since the change (of the venue's usable ones).
    public var checkinsSince: Int
    public var status: Status
    /// Raised by this judgement (not known before).
    public var isNew: Bool

    /// `init(...)`: memberwise; `shiftsDB` must have 24 values.
    public init(
        changedAt: Double, detectedAt: Double, shiftsDB: [Double], shiftDB: Double, checkinsSince: Int,
        status: Status = .inForce, isNew: Bool = false
    ) {
        precondition(shiftsDB.count == 24, "one shift per hour")
        self.changedAt = changedAt
        self.detectedAt = detectedAt
        self.shiftsDB = shiftsDB
        self.shiftDB = shiftDB
        self.checkinsSince = checkinsSince
        self.status = status
        self.isNew = isNew
    }

    /// The venue-local hours whose level moved.
    public var changedHours: [Int] { shiftsDB.indices.filter { shiftsDB[$0] != 0 } }
}

/// A change an earlier judgement stored: what the judge is told of its detections, the admin's
/// dismissals and its own withdrawals.
public struct KnownVenueChange: Sendable, Equatable {
    public var changedAt: Double
    public var detectedAt: Double
    public var status: VenueChange.Status
    /// Its shift over all hours as last judged, dB: what each hour's check-ins since are compared
    /// with to tell whether that hour moved.
    public var shiftDB: Double

    /// `init(changedAt:detectedAt:status:shiftDB:)`: memberwise.
    public init(changedAt: Double, detectedAt: Double, status: VenueChange.Status = .inForce, shiftDB: Double = 0) {
        self.changedAt = changedAt
        self.detectedAt = detectedAt
        self.status = status
        self.shiftDB = shiftDB
    }

    /// What a judgement's change is remembered as by the next.
    public init(_ change: VenueChange) {
        self.init(
            changedAt: change.changedAt, detectedAt: change.detectedAt, status: change.status, shiftDB: change.shiftDB)
    }
}

/// One check-in's residual in a change's evidence: how far it lay from the venue's level before
/// the change, for the admin's chart.
public struct ChangeResidual: Sendable, Equatable {
    /// The check-in's start, seconds since 1970.
    public var time: Double
    /// Its level less the venue's cell level before the change, dB (the mean over its hours).
    public var residualDB: Double
    /// What it weighed (its device's trust relative to the venue's).
    public var weight: Double
    /// Made at or after the change.
    public var after: Bool

    /// `init(time:residualDB:weight:after:)`: memberwise.
    public init(time: Double, residualDB: Double, weight: Double, after: Bool) {
        self.time = time
        self.residualDB = residualDB
        self.weight = weight
        self.after = after
    }
}
