import HearClearModel
import PostgresNIO

extension AggregationQueue {
    /// The channel every writer that queues a venue NOTIFYs, in the statement that queues it (so
    /// the workers wake when it commits); the payload is the venue key, or `*` for many venues.
    /// The workers LISTEN on it.
    public static let channel = "hearclear_aggregation"

    /// The one way a venue is queued: common table expressions that insert an `aggregation_queue`
    /// entry for each `venue_id` that `source` (an earlier CTE of the statement) yields, and
    /// NOTIFY ``channel`` for each once the statement evaluates their
    /// ``NotifyingCTEs/sentCount`` (the number of venues queued).
    ///
    /// - Parameters:
    ///   - reason: what changed: anything (the venue is read in full), only check-ins added
    ///     (`source` also yields their `id` and `started_at`; a worker that remembers the venue
    ///     reads just those), or nothing of its own (judged again from memory).
    ///   - oneNotification: NOTIFY `*` (PostgreSQL sends one per transaction) instead of one per
    ///     venue, when many venues are queued at once.
    static func enqueueing(from source: String, _ reason: Reason = .changed, oneNotification: Bool = false)
        -> NotifyingCTEs
    {
        let payload = oneNotification ? "'*'" : "queued.venue_id::text"
        let entry =
            switch reason {
            case .changed: "venue_id, false, NULL::uuid, NULL::timestamptz, false"
            case .checkinsAdded: "venue_id, true, id, started_at, false"
            case .rejudged: "venue_id, true, NULL::uuid, NULL::timestamptz, true"
            }
        let definitions = """
            queued AS (
                INSERT INTO aggregation_queue (venue_id, checkins_only, checkin_id, checkin_started_at, rejudge)
                SELECT \(entry) FROM \(source)
                RETURNING venue_id),
            notified AS (
                SELECT queued.venue_id FROM queued WHERE pg_notify('\(channel)', \(payload)) IS NOT NULL)
            """
        return NotifyingCTEs(definitions: definitions, sentCount: "(SELECT count(*) FROM notified)")
    }

    /// Why ``enqueueing(from:_:oneNotification:)`` queues a venue.
    enum Reason {
        /// Anything about the venue or its check-ins: read it in full.
        case changed
        /// Check-ins were stored (ingest): `source` yields each one's `id` and `started_at`.
        case checkinsAdded
        /// Nothing of the venue's own changed (its neighbours' levels did): judge it again.
        case rejudged
    }

    /// Forgets the stored cleaning of one venue's check-ins (every venue's when `venueID` is nil),
    /// so that the next judgement cleans them again from their samples, and queues each venue
    /// that had any, in the same statement. Answers the number of venues queued. A check-in whose
    /// samples are removed (migration 0015) keeps its cleaning: nothing is left to clean.
    static func forgettingCleaning(venueID: Int64?) -> PostgresQuery {
        let queueing = enqueueing(from: "affected")
        return """
            WITH forgotten AS (
                UPDATE checkins SET cleaned_at = NULL
                WHERE venue_id = COALESCE(\(venueID), venue_id) AND cleaned_at IS NOT NULL
                  AND samples_removed_at IS NULL
                RETURNING venue_id),
            affected AS (SELECT DISTINCT venue_id FROM forgotten),
            \(unescaped: queueing.definitions)
            SELECT \(unescaped: queueing.sentCount)
            """
    }

    /// Queues (and wakes the workers for) every venue with a check-in from `deviceKeys`; answers
    /// the number of venues queued.
    static func enqueueingVenues(ofDevices deviceKeys: [Int64]) -> PostgresQuery {
        let queueing = enqueueing(from: "device_venues")
        return """
            WITH device_venues AS (SELECT DISTINCT venue_id FROM checkins WHERE device_id = ANY(\(deviceKeys))),
            \(unescaped: queueing.definitions)
            SELECT \(unescaped: queueing.sentCount)
            """
    }
}
