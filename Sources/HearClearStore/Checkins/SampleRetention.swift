import Foundation
import Logging
import PostgresNIO

/// Removes the per-second samples of check-ins older than the retention (migrations 0015, 0017): what
/// re-cleaning needs, once their cleaning is stored and the method has had its time to change.
public struct SampleRetention: Sendable {
    let client: PostgresClient
    let logger: Logger

    public init(client: PostgresClient, logger: Logger) {
        self.client = client
        self.logger = logger
    }

    /// What one pass removed.
    public struct Pass: Sendable, Equatable {
        public var checkins = 0
        /// The samples' and class windows' stored size before (`pg_column_size`: after TOAST compression).
        public var bytes = 0
    }

    /// Strips every check-in received before `cutoff` whose cleaning is stored, in batches of
    /// `batch` (each its own statement, so ingest never waits long on one).
    public func strip(receivedBefore cutoff: Date, batch: Int = 1_000) async throws -> Pass {
        var total = Pass()
        while true {
            let rows = try await client.query(Self.stripQuery(receivedBefore: cutoff, batch: batch), logger: logger)
            var pass = Pass()
            for try await (count, bytes) in rows.decode((Int64, Int64).self) {
                pass = Pass(checkins: Int(count), bytes: Int(bytes))
            }
            guard pass.checkins > 0 else { return total }
            total.checkins += pass.checkins
            total.bytes += pass.bytes
        }
    }

    /// One batch of ``strip(receivedBefore:batch:)`` (its plan is tested).
    static func stripQuery(receivedBefore cutoff: Date, batch: Int) -> PostgresQuery {
        """
        WITH chosen AS (
            SELECT id, coalesce(pg_column_size(samples), 0)
                     + coalesce(pg_column_size(class_window_offsets_s), 0)
                     + coalesce(pg_column_size(class_window_seconds), 0)
                     + coalesce(pg_column_size(class_window_classes), 0)
                     + coalesce(pg_column_size(class_top_counts), 0)
                     + coalesce(pg_column_size(class_top_labels), 0)
                     + coalesce(pg_column_size(class_top_permille), 0)
                     AS bytes
            FROM checkins
            WHERE samples_removed_at IS NULL AND cleaned_at IS NOT NULL AND received_at < \(cutoff)
            ORDER BY received_at LIMIT \(batch) FOR UPDATE SKIP LOCKED),
        stripped AS (
            UPDATE checkins c SET samples = NULL, class_window_offsets_s = NULL,
                                  class_window_seconds = NULL, class_window_classes = NULL,
                                  class_top_counts = NULL, class_top_labels = NULL,
                                  class_top_permille = NULL, samples_removed_at = now()
            -- By the ids as one array: each month's primary key finds them, where a join on
            -- `chosen` would let the planner hash every month's rows (the plan is tested).
            FROM chosen WHERE c.id = ANY(ARRAY(SELECT id FROM chosen)) AND c.id = chosen.id
            RETURNING chosen.bytes)
        SELECT count(*)::int8, coalesce(sum(bytes), 0)::int8 FROM stripped
        """
    }
}
