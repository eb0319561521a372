import HearClearModel
import HearClearStore
import HearClearTestSupport
import PostgresNIO
import Testing

@testable import HearClearEngine

/// `/ready`'s question under load: a database that answers slowly is slow, not gone, and does
/// not close the outage gate (docs/ARCHITECTURE.md, "When the database is away"). Load is made
/// by holding every connection of the pool until the check has answered, so the pool's query
/// cannot answer however fast the machine is.
@Suite("Database readiness: slow is not gone")
struct DatabaseReadinessTests {
    @Test("a pool with every connection busy is slow; the gate stays open; freed, it is ready")
    func busyPoolIsSlow() async throws {
        try await withTestDatabase { _, configuration in
            var oneConnection = configuration
            oneConnection.options.maximumConnections = 1
            let pool = PostgresClient(configuration: oneConnection)
            let outage = DatabaseOutage()
            let migrations = Migrations(
                client: pool, migrations: try Migration.load(from: TestCluster.migrationsDirectory),
                logger: engineTestLogger)
            // The pool cannot answer while the test holds its connection, whatever the limit: a
            // short one only makes the test quick. Once it is free, the check may take as long as
            // a loaded machine needs.
            let readiness = DatabaseReadiness(
                migrations: migrations, endpoint: DatabaseEndpoint(configuration), outage: outage,
                limit: .milliseconds(200), probeLimit: TestPatience.event)
            let patient = DatabaseReadiness(
                migrations: migrations, endpoint: DatabaseEndpoint(configuration), outage: outage,
                limit: TestPatience.event)
            let (whileBusy, afterwards) = try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { await pool.run() }
                defer { group.cancelAll() }
                let whileBusy = try await pool.withConnection { _ in
                    await readiness.check(logger: engineTestLogger)
                }
                return (whileBusy, await patient.check(logger: engineTestLogger))
            }

            guard case .slow(let detail) = whileBusy else {
                Issue.record("not slow while every connection was busy: \(whileBusy)")
                return
            }
            #expect(detail.contains("a connection of its own answered"), "\(detail)")
            #expect(!outage.isDown, "a slow database does not close the gate")
            #expect(afterwards == .ready)
        }
    }

    @Test("a database with migrations pending is not ready")
    func pendingMigrations() async throws {
        try await withEmptyTestDatabase { client, configuration in
            let readiness = DatabaseReadiness(
                migrations: Migrations(
                    client: client, migrations: try Migration.load(from: TestCluster.migrationsDirectory),
                    logger: engineTestLogger),
                endpoint: DatabaseEndpoint(configuration), outage: DatabaseOutage(), limit: TestPatience.event)

            #expect(await readiness.check(logger: engineTestLogger) == .migrationsPending)
        }
    }
}
