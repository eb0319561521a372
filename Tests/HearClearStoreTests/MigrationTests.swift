import Foundation
import HearClearModel
import HearClearStore
import HearClearTestSupport
import Logging
import PostgresNIO
import Testing

@Suite("Migrations")
struct MigrationTests {
    let logger = Logger(label: "test")

    /// A throwaway Migrations/ folder with the given files.
    func folder(_ files: [String: String]) throws -> String {
        let directory = NSTemporaryDirectory() + "migrations-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        for (name, sql) in files {
            try sql.write(toFile: directory + "/" + name, atomically: true, encoding: .utf8)
        }
        return directory
    }

    func withEmptyDatabase(_ body: (PostgresClient) async throws -> Void) async throws {
        try await withEmptyTestDatabase { client, _ in try await body(client) }
    }

    @Test("the repository's migrations apply, and applying twice changes nothing")
    func applyTwice() async throws {
        try await withEmptyDatabase { client in
            let migrations = try Migration.load(from: TestCluster.migrationsDirectory)
            let runner = MigrationRunner(client: client, migrations: migrations, logger: logger)

            let first = try await runner.apply()
            let second = try await runner.apply()

            #expect(first == migrations.map(\.version))
            #expect(second.isEmpty)
            #expect(try await runner.isUpToDate())
            let rows = try await client.query("SELECT count(*) FROM schema_migrations")
            for try await count in rows.decode(Int.self) { #expect(count == migrations.count) }
        }
    }

    @Test("an applied file that changed is refused, naming it")
    func changedFileRefused() async throws {
        try await withEmptyDatabase { client in
            let original = try folder(["0001_a.sql": "CREATE TABLE a (x int);"])
            let changed = try folder(["0001_a.sql": "CREATE TABLE a (x int, y int);"])
            try await MigrationRunner(client: client, migrations: try Migration.load(from: original), logger: logger)
                .apply()

            await #expect(throws: MigrationError.checksumMismatch(version: 1, name: "0001_a.sql")) {
                try await MigrationRunner(client: client, migrations: try Migration.load(from: changed), logger: logger)
                    .apply()
            }
        }
    }

    @Test("a failing file rolls back entirely and is not recorded")
    func failingFileRollsBack() async throws {
        try await withEmptyDatabase { client in
            let directory = try folder([
                "0001_ok.sql": "CREATE TABLE ok (x int);",
                "0002_bad.sql": "CREATE TABLE half (x int);\nCREATE TABLE broken (x no_such_type);",
            ])
            let runner = MigrationRunner(
                client: client, migrations: try Migration.load(from: directory), logger: logger)

            await #expect(throws: MigrationError.self) { try await runner.apply() }

            let rows = try await client.query(
                "SELECT to_regclass('ok') IS NOT NULL, to_regclass('half') IS NOT NULL, (SELECT count(*) FROM schema_migrations)"
            )
            for try await (ok, half, recorded) in rows.decode((Bool, Bool, Int).self) {
                #expect(ok)
                #expect(!half, "the failed file's first statement was rolled back")
                #expect(recorded == 1)
            }
        }
    }

    @Test("two runners starting together apply each file once")
    func concurrentRunners() async throws {
        try await withEmptyDatabase { client in
            let migrations = try Migration.load(from: TestCluster.migrationsDirectory)
            let applied = try await withThrowingTaskGroup(of: [Int].self) { group in
                for _ in 0..<4 {
                    group.addTask {
                        try await MigrationRunner(client: client, migrations: migrations, logger: logger).apply()
                    }
                }
                return try await group.reduce(into: []) { $0 += $1 }
            }
            #expect(applied.sorted() == migrations.map(\.version))
        }
    }

    @Test("file names must be numbered; numbers must be unique")
    func badNames() throws {
        #expect(throws: MigrationError.badFileName("initial.sql")) {
            try Migration.load(from: try folder(["initial.sql": "SELECT 1;"]))
        }
        #expect(throws: MigrationError.duplicateVersion("0001_a.sql", "0001_b.sql")) {
            try Migration.load(from: try folder(["0001_a.sql": "SELECT 1;", "0001_b.sql": "SELECT 1;"]))
        }
        #expect(throws: MigrationError.directoryMissing("/nonexistent/Migrations")) {
            try Migration.load(from: "/nonexistent/Migrations")
        }
    }
}

@Suite("SQL script splitting")
struct SQLScriptTests {
    @Test("splits on semicolons outside strings, identifiers, comments and dollar quotes")
    func split() {
        let sql = """
            -- a comment; with a semicolon
            CREATE TABLE "odd;name" (x text DEFAULT 'a;b');
            /* block; comment */ INSERT INTO t VALUES ('it''s; fine');
            CREATE FUNCTION f() RETURNS int AS $body$ SELECT 1; $body$ LANGUAGE sql;
            DO $$ BEGIN PERFORM 1; END $$;
            SELECT $1
            """
        #expect(
            SQLScript.statements(sql) == [
                #"CREATE TABLE "odd;name" (x text DEFAULT 'a;b')"#,
                "INSERT INTO t VALUES ('it''s; fine')",
                "CREATE FUNCTION f() RETURNS int AS $body$ SELECT 1; $body$ LANGUAGE sql",
                "DO $$ BEGIN PERFORM 1; END $$",
                "SELECT $1",
            ]
        )
    }
}
