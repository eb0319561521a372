import HearClearModel
import PostgresNIO

extension AggregationQueue {
    /// The channel every writer that queues a venue NOTIFYs, in the statement that queues it (so
    /// the workers wake when it commits); the payload is the venue key, or `*` for many venues.
    /// The workers LISTEN on it.
    public static let channel = "hearclear_aggregation"

    /// The one way a venue is queued: common table expressions that insert an `aggregation_queue`
    /// entry for each `venue_id` that `source` (an earlier CTE of the statement) yields, and
    /// NOTIFY ``channel`` for each. `queued` holds the entries made; `notified` their venue keys
    /// once notified, and a statement must read `notified` (e.g. `SELECT count(*) FROM notified`)
    /// for the notifications to be sent.
    ///
    /// - Parameters:
    ///   - checkinsOnly: the venue only gained new check-ins (ingest): a worker that remembers the
    ///     venue may read just those.
    ///   - oneNotification: NOTIFY `*` (PostgreSQL sends one per transaction) instead of one per
    ///     venue, when many venues are queued at once.
    static func enqueueing(from source: String, checkinsOnly: Bool = false, oneNotification: Bool = false) -> String {
        let payload = oneNotification ? "'*'" : "queued.venue_id::text"
        return """
            queued AS (
                INSERT INTO aggregation_queue (venue_id, checkins_only) SELECT venue_id, \(checkinsOnly) FROM \(source)
                RETURNING venue_id),
            notified AS (
                SELECT queued.venue_id FROM queued WHERE pg_notify('\(channel)', \(payload)) IS NOT NULL)
            """
    }

    /// Forgets the stored cleaning of one venue's check-ins (every venue's when `venueID` is nil),
    /// so that the next judgement cleans them again from their samples, and queues each venue
    /// that had any, in the same statement. Answers the number of venues queued. A check-in whose
    /// samples are removed (migration 0015) keeps its cleaning: nothing is left to clean.
    static func forgettingCleaning(venueID: Int64?) -> PostgresQuery {
        """
        WITH forgotten AS (
            UPDATE checkins SET cleaned_at = NULL
            WHERE venue_id = COALESCE(\(venueID), venue_id) AND cleaned_at IS NOT NULL
              AND samples_removed_at IS NULL
            RETURNING venue_id),
        affected AS (SELECT DISTINCT venue_id FROM forgotten),
        \(unescaped: enqueueing(from: "affected"))
        SELECT count(*) FROM notified
        """
    }

    /// Queues (and wakes the workers for) every venue with a check-in from `deviceKeys`; answers
    /// the number of venues queued.
    static func enqueueingVenues(ofDevices deviceKeys: [Int64]) -> PostgresQuery {
        """
        WITH device_venues AS (SELECT DISTINCT venue_id FROM checkins WHERE device_id = ANY(\(deviceKeys))),
        \(unescaped: enqueueing(from: "device_venues"))
        SELECT count(*) FROM notified
        """
    }
}
