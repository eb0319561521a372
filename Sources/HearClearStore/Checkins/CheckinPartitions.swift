import Foundation
import Logging
import PostgresNIO

/// The monthly partitions of `checkins` (migration 0020): one table per UTC month of
/// `started_at`, made by the database's `checkins_partition(instant)`.
///
/// The server makes them ahead of time (``makeAhead(of:)``, hourly), so ingest normally finds its
/// month's table; a check-in of a month that has none (an old one from `hearclear-bench simulate`, a
/// test's fixed date) makes it at once (``isMissingPartition(_:)`` and ``make(for:)``).
public struct CheckinPartitions: Sendable {
    let client: PostgresClient
    let logger: Logger

    public init(client: PostgresClient, logger: Logger) {
        self.client = client
        self.logger = logger
    }

    /// The months a check-in received at `now` can have started in, and the next: from the month
    /// before `now`'s (a check-in may be two weeks old) to the one two after. Returns how many
    /// partitions were made.
    @discardableResult
    public func makeAhead(of now: Date) async throws -> Int {
        let rows = try await client.query(
            """
            SELECT checkins_partitions(\(now)::timestamptz - interval '1 month',
                                       \(now)::timestamptz + interval '2 months')
            """, logger: logger)
        for try await made in rows.decode(Int.self) { return made }
        return 0
    }

    /// Makes the partition of `instant`'s month when it is missing.
    public func make(for instant: Date) async throws {
        try await client.query("SELECT checkins_partition(\(instant))::text", logger: logger)
    }

    /// The partitions there are, oldest month first (their names are `checkins_YYYY_MM`).
    public func names() async throws -> [String] {
        let rows = try await client.query(
            """
            SELECT c.relname::text FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
            WHERE i.inhparent = 'checkins'::regclass ORDER BY c.relname
            """, logger: logger)
        var names: [String] = []
        for try await name in rows.decode(String.self) { names.append(name) }
        return names
    }

    /// Whether `error` is PostgreSQL refusing a check-in because no partition takes its
    /// `started_at` (check_violation, "no partition of relation … found for row").
    public static func isMissingPartition(_ error: any Error) -> Bool {
        guard let error = error as? PSQLError, error.sqlState == "23514" else { return false }
        return error.serverInfo?[.message]?.hasPrefix("no partition of relation") == true
    }
}
