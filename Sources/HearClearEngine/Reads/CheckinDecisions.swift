import Foundation
import HearClearModel
import HearClearStore

/// An admin's standing decision on one check-in — forced in, forced out, or withdrawn — recorded
/// and applied at once: the venue is re-judged before the call returns.
public struct CheckinDecisions: Sendable {
    let overrides: CheckinOverrideRepository
    let aggregator: Aggregator

    /// The admin's decision standing on the check-in; nil when there is none.
    public func current(checkinID: UUID) async throws -> CheckinOverride? {
        try await overrides.find(checkinID: checkinID)
    }

    /// Records `decision` (nil withdraws it) and re-judges the check-in's venue. Returns the venue
    /// key; `nil` when there is no such check-in (or, withdrawing, no decision to withdraw).
    public func decide(
        checkinID: UUID, _ decision: AggregationInput.AdminDecision?, username: String, note: String?
    ) async throws -> Int64? {
        let venueID: Int64?
        if let decision {
            venueID = try await overrides.set(checkinID: checkinID, decision: decision, username: username, note: note)
        } else {
            venueID = try await overrides.clear(checkinID: checkinID)
        }
        if let venueID { try await aggregator.recompute(venueID: venueID) }
        return venueID
    }
}
