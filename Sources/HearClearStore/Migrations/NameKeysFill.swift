import HearClearModel
import Logging
import PostgresNIO

/// Writes every stored venue's `name_key` (``NameWords/key(of:)``): the migration runner's
/// preparation of 0027. In batches of ``batchSize`` venues in id order, each its own transaction;
/// then, in 0027's transaction with the table locked against writes, those an older server wrote
/// meanwhile (found by the column being NULL: few, so the lock is short).
enum NameKeysFill {
    static let batchSize = 2_000

    static let preparation = MigrationPreparation(
        before: { connection, logger in
            try await connection.query("ALTER TABLE venues ADD COLUMN IF NOT EXISTS name_key text", logger: logger)
            let started = ContinuousClock.now
            var after: Int64 = 0
            var total = 0
            while true {
                let filled = try await connection.transaction(logger: logger) {
                    try await fill(after: after, on: $0, logger: logger)
                }
                guard let last = filled.last else { break }
                after = last
                total += filled.count
            }
            logger.info(
                "venues' name keys written",
                metadata: [
                    "venues": "\(total)", "milliseconds": "\(MigrationPreparation.milliseconds(since: started))",
                ])
        },
        within: { connection, logger in
            try await connection.query("ALTER TABLE venues ADD COLUMN IF NOT EXISTS name_key text", logger: logger)
            try await connection.query("LOCK TABLE venues IN SHARE ROW EXCLUSIVE MODE", logger: logger)
            var after: Int64 = 0
            while let last = try await fill(after: after, on: connection, logger: logger).last { after = last }
        })

    /// Fills the next batch of venues without a key after id `after`, locked; their ids.
    private static func fill(after: Int64, on connection: PostgresConnection, logger: Logger) async throws -> [Int64] {
        var ids: [Int64] = []
        var keys: [String] = []
        let rows = try await connection.query(
            """
            SELECT id, name FROM venues WHERE id > \(after) AND name_key IS NULL
            ORDER BY id LIMIT \(batchSize) FOR UPDATE
            """, logger: logger)
        for try await (id, name) in rows.decode((Int64, String).self) {
            ids.append(id)
            keys.append(NameWords.key(of: name))
        }
        guard !ids.isEmpty else { return [] }
        try await connection.query(
            """
            UPDATE venues v SET name_key = u.key
            FROM unnest(\(ids)::bigint[], \(keys)::text[]) AS u(id, key) WHERE v.id = u.id
            """, logger: logger)
        return ids
    }
}
