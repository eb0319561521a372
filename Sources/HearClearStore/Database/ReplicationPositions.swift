import Logging
import PostgresNIO

/// Write-ahead log positions (`X/Y`), to tell how far a streaming replica has replayed.
public enum ReplicationPositions {
    /// The primary's current insert position.
    public static func inserted(on primary: PostgresClient, logger: Logger) async throws -> String {
        try await position("SELECT pg_current_wal_insert_lsn()::text", on: primary, logger: logger)
    }

    /// The last position a replica has replayed.
    public static func replayed(on replica: PostgresClient, logger: Logger) async throws -> String {
        try await position("SELECT pg_last_wal_replay_lsn()::text", on: replica, logger: logger)
    }

    private static func position(_ sql: String, on client: PostgresClient, logger: Logger) async throws -> String {
        let rows = try await client.query(PostgresQuery(unsafeSQL: sql), logger: logger)
        for try await position in rows.decode(String?.self) {
            guard let position else { break }
            return position
        }
        throw StoreError.unexpected("\(sql) gave no position (is it a streaming replica?)")
    }
}
