import Foundation
import LoudnessCore

/// A row of `venue_changes`: a lasting change of a venue's level as a judgement found it
/// (docs/ARCHITECTURE.md, "Venues that change").
public struct StoredVenueChange: Sendable, Equatable {
    public var changedAt: Date
    public var detectedAt: Date
    public var status: VenueChange.Status
    /// The shift over all hours, and at each venue-local hour 0…23 (0 where it did not change), dB.
    public var shiftDB: Double
    public var shiftsDB: [Double]
    public var checkinsSince: Int
    /// Who dismissed it and when, for a dismissed one.
    public var dismissedAt: Date?
    public var dismissedBy: String?

    public init(
        changedAt: Date, detectedAt: Date, status: VenueChange.Status, shiftDB: Double, shiftsDB: [Double],
        checkinsSince: Int, dismissedAt: Date? = nil, dismissedBy: String? = nil
    ) {
        self.changedAt = changedAt
        self.detectedAt = detectedAt
        self.status = status
        self.shiftDB = shiftDB
        self.shiftsDB = shiftsDB
        self.checkinsSince = checkinsSince
        self.dismissedAt = dismissedAt
        self.dismissedBy = dismissedBy
    }

    /// As the judge takes it.
    public var known: KnownVenueChange {
        KnownVenueChange(
            changedAt: changedAt.timeIntervalSince1970, detectedAt: detectedAt.timeIntervalSince1970, status: status,
            shiftDB: shiftDB)
    }

    /// The row a judgement's change is stored as (dismissal kept from `previous`).
    public init(_ change: VenueChange, previous: StoredVenueChange?) {
        self.init(
            changedAt: Date(timeIntervalSince1970: change.changedAt),
            detectedAt: previous?.detectedAt ?? Date(timeIntervalSince1970: change.detectedAt),
            status: previous?.status == .dismissed ? .dismissed : change.status, shiftDB: change.shiftDB,
            shiftsDB: change.shiftsDB, checkinsSince: change.checkinsSince, dismissedAt: previous?.dismissedAt,
            dismissedBy: previous?.dismissedBy)
    }
}
