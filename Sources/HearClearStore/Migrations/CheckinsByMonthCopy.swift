import Foundation
import Logging
import PostgresNIO

/// Copies every check-in into `checkins_by_month` (migration 0020) before 0021 puts it in the old
/// table's place: the migration runner's preparation of 0021.
///
/// First the partitions of every month the check-ins have and of the months around now, in a
/// short transaction of their own; then one statement that reads the old table (which only stops
/// nobody from writing: ACCESS SHARE) into the new one, and the ids into `checkin_ids`. What is
/// written meanwhile is logged by 0020's trigger, and 0021 copies it again under its lock. Run
/// again whole (a start stopped half-way), it empties the new tables first.
enum CheckinsByMonthCopy {
    static let preparation = MigrationPreparation(
        before: { connection, logger in
            let started = ContinuousClock.now
            try await connection.query("BEGIN", logger: logger)
            do {
                try await connection.query(
                    """
                    SELECT checkins_partition(m AT TIME ZONE 'UTC', 'checkins_by_month')
                    FROM (SELECT DISTINCT date_trunc('month', started_at AT TIME ZONE 'UTC') AS m FROM checkins) months
                    """, logger: logger)
                try await connection.query(
                    """
                    SELECT checkins_partitions(now() - interval '1 month', now() + interval '2 months',
                                               'checkins_by_month')
                    """, logger: logger)
                try await connection.query("COMMIT", logger: logger)
                try await connection.query("BEGIN", logger: logger)
                try await connection.query("TRUNCATE checkins_by_month, checkin_ids", logger: logger)
                try await connection.query("INSERT INTO checkins_by_month SELECT * FROM checkins", logger: logger)
                // The count from the copy itself, not from a second read of the table.
                let copied =
                    try await connection.query(
                        """
                        WITH copied AS (INSERT INTO checkin_ids (id) SELECT id FROM checkins RETURNING 1)
                        SELECT count(*) FROM copied
                        """, logger: logger
                    ).decode(Int.self).first { _ in true } ?? 0
                try await connection.query("COMMIT", logger: logger)
                logger.info(
                    "check-ins copied into their months",
                    metadata: [
                        "checkins": "\(copied)",
                        "milliseconds": "\(MigrationPreparation.milliseconds(since: started))",
                    ])
            } catch {
                _ = try? await connection.query("ROLLBACK", logger: logger)
                throw error
            }
        },
        within: { _, _ in })
}
