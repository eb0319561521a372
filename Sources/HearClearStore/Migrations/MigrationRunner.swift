import HearClearModel
import Logging
import PostgresNIO

/// Applies `Migrations/*.sql` in order, each in its own transaction, under an advisory lock so
/// two servers starting together do not race. A file may need work in code first
/// (``MigrationPreparation``). Each applied file is recorded with its MD5
/// (computed by PostgreSQL); an applied file that later changed is refused.
public struct MigrationRunner: Sendable {
    /// Advisory lock key: "HEARCL" in ASCII.
    static let lockKey: Int64 = 0x4845_4152_434C

    let client: PostgresClient
    let migrations: [Migration]
    let logger: Logger

    public init(client: PostgresClient, migrations: [Migration], logger: Logger) {
        self.client = client
        self.migrations = migrations
        self.logger = logger
    }

    /// Applies what is pending; returns the versions it applied.
    @discardableResult
    public func apply() async throws -> [Int] {
        try await client.withConnection { connection in
            _ = try await connection.query("SELECT pg_advisory_lock(\(Self.lockKey))", logger: logger)
            do {
                let applied = try await applyLocked(on: connection)
                _ = try await connection.query("SELECT pg_advisory_unlock(\(Self.lockKey))", logger: logger)
                return applied
            } catch {
                _ = try? await connection.query("SELECT pg_advisory_unlock(\(Self.lockKey))", logger: logger)
                throw error
            }
        }
    }

    /// True when every migration file has been applied (checksums are verified by `apply()`).
    public func isUpToDate() async throws -> Bool {
        let versions = migrations.map(\.version)
        do {
            let rows = try await client.query(
                "SELECT count(*) FROM schema_migrations WHERE version = ANY(\(versions))", logger: logger
            )
            for try await count in rows.decode(Int.self) { return count == versions.count }
            return false
        } catch let error as PSQLError where error.sqlState == "42P01" {
            return false  // undefined_table: nothing applied yet
        }
    }

    private func applyLocked(on connection: PostgresConnection) async throws -> [Int] {
        try await connection.query(
            """
            CREATE TABLE IF NOT EXISTS schema_migrations (
                version integer PRIMARY KEY, name text NOT NULL, checksum text NOT NULL,
                applied_at timestamptz NOT NULL DEFAULT now())
            """,
            logger: logger
        )
        var recorded: [Int: String] = [:]
        let rows = try await connection.query("SELECT version, checksum FROM schema_migrations", logger: logger)
        for try await (version, checksum) in rows.decode((Int, String).self) { recorded[version] = checksum }

        var applied: [Int] = []
        for migration in migrations {
            let checksum = try await md5(migration.sql, on: connection)
            if let existing = recorded[migration.version] {
                guard existing == checksum else {
                    throw MigrationError.checksumMismatch(version: migration.version, name: migration.name)
                }
                continue
            }
            try await run(migration, checksum: checksum, on: connection)
            applied.append(migration.version)
        }
        return applied
    }

    private func run(_ migration: Migration, checksum: String, on connection: PostgresConnection) async throws {
        let preparation = MigrationPreparation.byFile[migration.name]
        if let preparation { try await preparation.before(connection, logger) }
        try await connection.query("BEGIN", logger: logger)
        do {
            if let preparation { try await preparation.within(connection, logger) }
            for statement in SQLScript.statements(migration.sql) {
                do {
                    try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger)
                } catch let error as PSQLError {
                    var message = error.serverInfo?[.message] ?? "\(error)"
                    if let hint = error.serverInfo?[.hint] { message += " (\(hint))" }
                    throw MigrationError.failed(name: migration.name, statement: statement, message: message)
                }
            }
            try await connection.query(
                "INSERT INTO schema_migrations (version, name, checksum) VALUES (\(migration.version), \(migration.name), \(checksum))",
                logger: logger
            )
            try await connection.query("COMMIT", logger: logger)
            logger.info("applied migration", metadata: ["migration": "\(migration.name)"])
        } catch {
            _ = try? await connection.query("ROLLBACK", logger: logger)
            throw error
        }
    }

    private func md5(_ text: String, on connection: PostgresConnection?) async throws -> String {
        let query: PostgresQuery = "SELECT md5(\(text))"
        let rows =
            if let connection {
                try await connection.query(query, logger: logger)
            } else {
                try await client.query(query, logger: logger)
            }
        for try await checksum in rows.decode(String.self) { return checksum }
        return ""
    }
}
