import Foundation
import HearClearModel
import Logging
import PostgresNIO

/// The months of `checkins` (one partition `checkins_YYYY_MM` each, migration 0020): what each
/// holds, and a whole month dropped with everything that names its check-ins
/// (docs/ARCHITECTURE.md, "Check-ins by month").
public struct CheckinMonthRepository: Sendable {
    let client: PostgresClient
    let logger: Logger

    public init(client: PostgresClient, logger: Logger) {
        self.client = client
        self.logger = logger
    }

    /// Every month partition of `checkins`, oldest first, with its check-ins, their first and last
    /// start, and its size on disk. A partition of another name (made by hand) is not listed.
    public func months() async throws -> [CheckinMonth] {
        let rows = try await client.query(
            """
            SELECT c.relname::text, pg_total_relation_size(c.oid)
            FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
            WHERE i.inhparent = 'checkins'::regclass ORDER BY c.relname
            """, logger: logger)
        var partitions: [(UTCMonth, Int64)] = []
        for try await (name, bytes) in rows.decode((String, Int64).self) {
            if let month = UTCMonth(partitionName: name) { partitions.append((month, bytes)) }
        }
        var months: [CheckinMonth] = []
        for (month, bytes) in partitions.sorted(by: { $0.0 < $1.0 }) {
            // The name is made again from the parsed month, so it is a plain identifier.
            let counts = try await client.query(
                PostgresQuery(
                    unsafeSQL: "SELECT count(*), min(started_at), max(started_at) FROM \(month.partitionName)"),
                logger: logger)
            for try await (count, oldest, newest) in counts.decode((Int, Date?, Date?).self) {
                months.append(
                    CheckinMonth(
                        month: month, checkins: count, oldestStartedAt: oldest, newestStartedAt: newest, bytes: bytes))
            }
        }
        return months
    }

    /// Drops `month`'s partition and everything that names its check-ins, in one transaction:
    /// their ids (`checkin_ids`), hourly pieces, admins' decisions and queue entries; the venues'
    /// check-in counts (`venue_counts`) lowered by what they had in it; every venue that had a
    /// check-in in it queued to be judged again in full (so its cells, changes and campaigns stop
    /// counting them, as after an erasure); then the partition detached and dropped, and the admin
    /// audit log written (counts only) as done `by`. `nil`, and nothing changed, when the month has
    /// no partition.
    ///
    /// The month's partition is locked against writes first (`SHARE`), so no check-in enters or
    /// changes in it while its ids are read; detaching takes an `ACCESS EXCLUSIVE` lock on
    /// `checkins` from there to the commit, which holds only the per-venue counts, the queueing and
    /// the drop. A worker judging one of the month's venues at that moment may deadlock with it:
    /// PostgreSQL ends one of the two (``isLockConflict(_:)``), and both may simply run again.
    /// `lockTimeout` bounds every wait for a lock (a reader holding `checkins` would otherwise make
    /// ingest queue behind the detach): past it, PostgreSQL's error is thrown and nothing changed.
    public func drop(_ month: UTCMonth, by: String, lockTimeout: Duration = .seconds(10)) async throws
        -> CheckinMonthDrop?
    {
        let table = month.partitionName
        return try await client.transaction(logger: logger) { connection -> CheckinMonthDrop? in
            guard let bytes = try await lock(table, lockTimeout: lockTimeout, on: connection) else { return nil }
            let removed = try await forget(table, on: connection)
            let venues = try await detach(table, on: connection)
            try await connection.query(PostgresQuery(unsafeSQL: "DROP TABLE \(table)"), logger: logger)
            let drop = CheckinMonthDrop(
                month: month, checkins: removed.checkins, hours: removed.hours, overrides: removed.decisions,
                queueEntries: removed.entries, venues: venues, bytes: bytes)
            let detail =
                "\(drop.checkins) check-ins, \(drop.hours) hours, \(drop.overrides) decisions, \(drop.queueEntries) queue entries, \(drop.venues) venues queued, \(drop.bytes) bytes"
            try await connection.query(
                """
                INSERT INTO admin_audit_log (username, action, subject, detail)
                VALUES (\(by), 'check-in month dropped', \(month.description), \(detail))
                """, logger: logger)
            return drop
        }
    }

    /// Sets the transaction's lock timeout, takes checkins_partition()'s lock and locks the
    /// month's partition against writes; its size in bytes, nil when there is no such partition.
    private func lock(_ table: String, lockTimeout: Duration, on connection: PostgresConnection) async throws
        -> Int64?
    {
        let milliseconds =
            lockTimeout.components.seconds * 1000 + lockTimeout.components.attoseconds / 1_000_000_000_000_000
        try await connection.query(
            PostgresQuery(unsafeSQL: "SET LOCAL lock_timeout = \(max(1, milliseconds))"), logger: logger)
        // checkins_partition()'s lock ("HCPART"): no partition is made while this one goes.
        try await connection.query("SELECT pg_advisory_xact_lock(x'484350415254'::bigint)", logger: logger)
        let found = try await connection.query(
            """
            SELECT pg_total_relation_size(c.oid)
            FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
            WHERE i.inhparent = 'checkins'::regclass AND c.relname = \(table)
            """, logger: logger
        ).decode(Int64.self).first { _ in true }
        guard let bytes = found else { return nil }
        try await connection.query(PostgresQuery(unsafeSQL: "LOCK TABLE \(table) IN SHARE MODE"), logger: logger)
        return bytes
    }

    /// Deletes what names the month's check-ins, before the detach: their hours, decisions, queue
    /// entries and ids; how many of each. Ingest writes none of these rows (its ids are new), so
    /// it does not wait on this statement.
    private func forget(_ table: String, on connection: PostgresConnection) async throws -> (
        checkins: Int, hours: Int, decisions: Int, entries: Int
    ) {
        let rows = try await connection.query(
            """
            WITH month AS MATERIALIZED (SELECT id FROM \(unescaped: table)),
            hours AS (DELETE FROM checkin_hours WHERE checkin_id IN (SELECT id FROM month) RETURNING 1),
            decisions AS (DELETE FROM checkin_overrides WHERE checkin_id IN (SELECT id FROM month) RETURNING 1),
            -- Only a venue's worker deletes its entries as a rule: one it holds now (locked by
            -- its delete) is left to it; the venue's new entry below has it read in full anyway.
            entries AS (
                DELETE FROM aggregation_queue WHERE id IN (
                    SELECT id FROM aggregation_queue WHERE checkin_id IN (SELECT id FROM month)
                    FOR UPDATE SKIP LOCKED)
                RETURNING 1),
            forgotten AS (DELETE FROM checkin_ids WHERE id IN (SELECT id FROM month) RETURNING 1)
            SELECT (SELECT count(*) FROM month), (SELECT count(*) FROM hours), (SELECT count(*) FROM decisions),
                   (SELECT count(*) FROM entries), (SELECT count(*) FROM forgotten)
            """, logger: logger)
        // (Every data-modifying CTE runs whether or not the answer reads it.)
        var removed: (checkins: Int, hours: Int, decisions: Int, entries: Int)?
        for try await (checkins, hours, decisions, entries, _) in rows.decode((Int, Int, Int, Int, Int).self) {
            removed = (checkins, hours, decisions, entries)
        }
        guard let removed else { throw StoreError.unexpected("dropping \(table) answered no row") }
        return removed
    }

    /// Detaches the month's partition, takes its check-ins off their venues' counts and queues
    /// those venues for a full read; how many were queued.
    private func detach(_ table: String, on connection: PostgresConnection) async throws -> Int {
        try await connection.query(
            PostgresQuery(unsafeSQL: "ALTER TABLE checkins DETACH PARTITION \(table)"), logger: logger)
        // Ingest's statement writes `venue_counts` while it holds `checkins`: now that the
        // detach holds `checkins`, no ingest is half way through, so none waits on these rows.
        let queueing = AggregationQueue.enqueueing(from: "touched", oneNotification: true)
        let queued = try await connection.query(
            """
            WITH per_venue AS (SELECT venue_id, count(*) AS n FROM \(unescaped: table) GROUP BY venue_id),
            counted AS (
                UPDATE venue_counts c SET checkins = greatest(c.checkins - p.n, 0)
                FROM per_venue p WHERE c.venue_id = p.venue_id RETURNING 1),
            touched AS (SELECT venue_id FROM per_venue),
            \(unescaped: queueing.definitions)
            SELECT \(unescaped: queueing.sentCount), (SELECT count(*) FROM counted)
            """, logger: logger
        ).decode((Int, Int).self).first { _ in true }
        return queued?.0 ?? 0
    }

    /// Whether `error` is a drop that gave way to another transaction: a deadlock PostgreSQL broke
    /// (40P01) or a lock not had within the timeout (55P03). Nothing was changed; it may run again.
    public static func isLockConflict(_ error: any Error) -> Bool {
        guard let state = (error as? PSQLError)?.sqlState else { return false }
        return state == "40P01" || state == "55P03"
    }
}
