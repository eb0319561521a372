import Foundation
import HearClearModel
import Logging
import PostgresNIO

/// `checkin_overrides`: admins force a check-in in or out of its cells, and withdraw that. The
/// aggregation worker applies the decision at every re-judgement of the venue (see
/// `AggregationRepository.load`); the caller recomputes the venue so the change shows at once.
public struct CheckinOverrideRepository: Sendable {
    let client: PostgresClient
    let logger: Logger

    public init(client: PostgresClient, logger: Logger) {
        self.client = client
        self.logger = logger
    }

    public func find(checkinID: UUID) async throws -> CheckinOverride? {
        let rows = try await client.query(
            "SELECT decision, username, note, created_at FROM checkin_overrides WHERE checkin_id = \(checkinID)",
            logger: logger
        )
        for try await (decision, username, note, createdAt) in rows.decode((String, String, String?, Date).self) {
            guard let decision = AggregationInput.AdminDecision(rawValue: decision) else { return nil }
            return CheckinOverride(decision: decision, username: username, note: note, createdAt: createdAt)
        }
        return nil
    }

    /// Records (or replaces) the decision; returns the check-in's venue key, nil when there is no
    /// such check-in.
    public func set(
        checkinID: UUID, decision: AggregationInput.AdminDecision, username: String, note: String?
    ) async throws -> Int64? {
        let rows = try await client.query(
            """
            INSERT INTO checkin_overrides (checkin_id, venue_id, decision, username, note)
            SELECT id, venue_id, \(decision.rawValue), \(username), \(note) FROM checkins WHERE id = \(checkinID)
            ON CONFLICT (checkin_id) DO UPDATE SET decision = EXCLUDED.decision, username = EXCLUDED.username,
                note = EXCLUDED.note, created_at = now()
            RETURNING venue_id
            """,
            logger: logger
        )
        for try await venueID in rows.decode(Int64.self) { return venueID }
        return nil
    }

    /// Withdraws the decision; returns the venue key, nil when there was none.
    public func clear(checkinID: UUID) async throws -> Int64? {
        let rows = try await client.query(
            "DELETE FROM checkin_overrides WHERE checkin_id = \(checkinID) RETURNING venue_id", logger: logger
        )
        for try await venueID in rows.decode(Int64.self) { return venueID }
        return nil
    }
}
