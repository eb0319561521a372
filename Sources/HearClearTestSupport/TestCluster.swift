import Foundation
import HearClearModel
import HearClearStore
import Logging
import PostgresNIO

/// One embedded PostgreSQL per test run (fsync off, in a private /tmp directory removed when
/// the run ends) and a migrated template database; every test gets a fresh database cloned
/// from the template, which costs milliseconds.
public actor TestCluster {
    public static let shared = TestCluster()

    /// Started once; concurrent callers await the same task (the actor is reentrant across awaits).
    private var server: Task<EmbeddedPostgres, any Error>?
    private var standby: EmbeddedPostgres?
    /// The standby's replication slot on the primary.
    private var standbySlot: String?
    /// Made once, like the server.
    private var template: Task<Void, any Error>?
    private let logger = Logger(label: "hearclear.tests")
    public static let templateName = "hearclear_template"

    /// The repository's `Migrations/` directory, found from this source file.
    public static var repositoryRoot: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().path
    }

    public static var migrationsDirectory: String { repositoryRoot + "/Migrations" }

    /// The cluster, started (off the concurrency pool: initdb and pg_ctl block) on first use.
    public func cluster() async throws -> EmbeddedPostgres {
        if server == nil {
            let logger = self.logger
            server = Task {
                TestWatchdog.start()
                let directory =
                    NSTemporaryDirectory() + "hearclear-test-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
                return try await offThePool {
                    try EmbeddedPostgres.start(
                        dataDirectory: directory, durable: false, removeWhenStopped: true, logger: logger)
                }
            }
        }
        return try await server!.value
    }

    /// A hot standby of the test cluster (streaming replication over Unix sockets), started on
    /// first use; every database of the cluster appears on it once replayed.
    public func replica() async throws -> EmbeddedPostgres {
        if let standby { return standby }
        let primary = try await cluster()
        let suffix = "\(getpid())_\(UInt32.random(in: 0...UInt32.max))"
        let directory = NSTemporaryDirectory() + "hearclear-replica-\(suffix)"
        // The primary keeps the WAL the standby has not received (a loaded machine can otherwise
        // recycle a segment before the standby first connects, and it never replays again).
        let slot = "hearclear_standby_\(suffix)"
        let logger = self.logger
        let started = try await offThePool {
            try EmbeddedPostgres.startStandby(of: primary, dataDirectory: directory, slot: slot, logger: logger)
        }
        // Another caller may have started one meanwhile (the actor is reentrant): keep the first.
        if let standby {
            try await offThePool { started.stop() }
            try await dropSlot(slot)
            return standby
        }
        standby = started
        standbySlot = slot
        return started
    }

    /// Stops the standby (a later ``replica()`` starts a new one).
    public func stopReplica() async throws {
        guard let stopping = standby else { return }
        standby = nil
        try await offThePool { stopping.stop() }
        if let slot = standbySlot {
            standbySlot = nil
            try await dropSlot(slot)
        }
    }

    /// Drops a stopped standby's replication slot, so the primary stops keeping WAL for it.
    private func dropSlot(_ slot: String) async throws {
        let server = try await cluster()
        try await Self.admin(server) { client in
            try await client.query("SELECT pg_drop_replication_slot(\(slot))", logger: logger)
        }
    }

    /// Creates an empty database (no migrations) and returns its name.
    public func emptyDatabase() async throws -> String {
        let server = try await cluster()
        let name = "t_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased().prefix(20)
        try await Self.admin(server) { client in
            try await client.query(PostgresQuery(unsafeSQL: "CREATE DATABASE \(name)"), logger: logger)
        }
        return String(name)
    }

    /// Creates a migrated database and returns its name.
    public func migratedDatabase() async throws -> String {
        let server = try await cluster()
        if template == nil {
            let logger = self.logger
            template = Task {
                try await Self.admin(server) { client in
                    try await client.query(
                        PostgresQuery(unsafeSQL: "CREATE DATABASE \(Self.templateName)"), logger: logger
                    )
                }
                try await Self.withClient(server.configuration(database: Self.templateName)) { client in
                    let migrations = try Migration.load(from: Self.migrationsDirectory)
                    try await MigrationRunner(client: client, migrations: migrations, logger: logger).apply()
                }
            }
        }
        do {
            try await template?.value
        } catch {
            throw TestClusterError(message: "cannot create the template database: \(String(reflecting: error))")
        }
        let name = "t_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased().prefix(20)
        try await Self.admin(server) { client in
            try await client.query(
                PostgresQuery(unsafeSQL: "CREATE DATABASE \(name) TEMPLATE \(Self.templateName) STRATEGY = FILE_COPY"),
                logger: logger
            )
        }
        return String(name)
    }

    private static func admin(
        _ server: EmbeddedPostgres, isolation: isolated (any Actor)? = #isolation,
        _ body: (PostgresClient) async throws -> Void
    ) async throws {
        try await withClient(server.configuration(database: "postgres"), body)
    }

    /// Runs `body` with a running client for `configuration`, shutting it down after.
    public static func withClient<T: Sendable>(
        _ configuration: PostgresClient.Configuration, isolation: isolated (any Actor)? = #isolation,
        _ body: (PostgresClient) async throws -> T
    ) async throws -> T {
        let client = PostgresClient(configuration: configuration)
        return try await withThrowingTaskGroup(of: Void.self, isolation: isolation) { group in
            group.addTask { await client.run() }
            defer { group.cancelAll() }
            return try await body(client)
        }
    }
}

/// A fresh migrated database for one test, with a running client, once one of the run's
/// database places is free (``TestSlots/databases``).
public func withTestDatabase<T: Sendable>(
    isolation: isolated (any Actor)? = #isolation,
    _ body: (PostgresClient, PostgresClient.Configuration) async throws -> T
) async throws -> T {
    try await TestSlots.databases.withSlot {
        TestSlots.note("creating its database")
        let name = try await TestCluster.shared.migratedDatabase()
        let configuration = try await TestCluster.shared.cluster().configuration(database: name)
        return try await TestCluster.withClient(configuration) { client in
            TestSlots.note("running on its database")
            defer { TestSlots.note("stopping its database client") }
            return try await body(client, configuration)
        }
    }
}

/// ``withTestDatabase(isolation:_:)`` with an empty database: no migrations applied.
public func withEmptyTestDatabase<T: Sendable>(
    isolation: isolated (any Actor)? = #isolation,
    _ body: (PostgresClient, PostgresClient.Configuration) async throws -> T
) async throws -> T {
    try await TestSlots.databases.withSlot {
        let name = try await TestCluster.shared.emptyDatabase()
        let configuration = try await TestCluster.shared.cluster().configuration(database: name)
        return try await TestCluster.withClient(configuration) { client in try await body(client, configuration) }
    }
}

struct TestClusterError: Error, CustomStringConvertible {
    var message: String
    var description: String { message }
}
