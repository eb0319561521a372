import Logging
import PostgresNIO

/// Converts the device ids stored before they were kept keyed (migration 0014): each row's
/// `client_id` becomes its keyed form, and its reports' `device_sha256` the hash of that.
public struct DeviceKeying: Sendable {
    let client: PostgresClient
    let logger: Logger

    public init(client: PostgresClient, logger: Logger) {
        self.client = client
        self.logger = logger
    }

    /// Converts every row not yet keyed, in batches of 500 (each in its own transaction; rows
    /// another instance is converting are skipped, not waited for); the number converted.
    public func convert(_ keyed: @Sendable (String) -> String) async throws -> Int {
        var total = 0
        while true {
            let converted = try await client.transaction(logger: logger) { connection -> Int in
                let rows = try await connection.query(
                    "SELECT id, client_id FROM devices WHERE NOT keyed ORDER BY id LIMIT 500 FOR UPDATE SKIP LOCKED",
                    logger: logger)
                var ids: [Int64] = []
                var keys: [String] = []
                for try await (id, clientID) in rows.decode((Int64, String).self) {
                    ids.append(id)
                    keys.append(keyed(clientID))
                }
                guard !ids.isEmpty else { return 0 }
                try await connection.query(
                    """
                    UPDATE devices d SET client_id = u.keyed, keyed = true
                    FROM unnest(\(ids)::bigint[], \(keys)::text[]) AS u(id, keyed) WHERE d.id = u.id
                    """,
                    logger: logger)
                try await connection.query(
                    """
                    UPDATE venue_reports r SET device_sha256 = sha256(convert_to(u.keyed, 'UTF8'))
                    FROM unnest(\(ids)::bigint[], \(keys)::text[]) AS u(id, keyed) WHERE r.device_id = u.id
                    """,
                    logger: logger)
                return ids.count
            }
            guard converted > 0 else { return total }
            total += converted
        }
    }
}
