import Foundation
import HearClearEngine
import HearClearModel
import HearClearServer
import HearClearTestSupport
import Hummingbird
import HummingbirdTesting
import Logging
import PostgresNIO

/// Server settings for tests: resources from the repository.
public func testConfiguration() -> ServerConfiguration {
    var configuration = ServerConfiguration()
    configuration.resourcesDirectory = TestCluster.repositoryRoot
    configuration.port = 0
    configuration.databaseConnections = 8
    configuration.adminPasswordHash = AdminTestCredentials.passwordHash
    // Loopback exempt, as an operator exempts their own tools: the tests that are about limits
    // (RateLimitTests, ReportTests) set their own, and one checks the default.
    configuration.rateLimits.exempt = IPNetwork.loopback
    configuration.engine.deviceKey = DeviceKey.tests
    return configuration
}

public let testLogger: Logger = {
    var logger = Logger(label: "hearclear.test")
    logger.logLevel = .warning
    return logger
}()

/// Runs `body` against the real router on a fresh migrated database.
public func withRouterApp<T: Sendable>(
    configuration: ServerConfiguration = testConfiguration(),
    _ body: @Sendable @escaping (any TestClientProtocol, PostgresClient) async throws -> T
) async throws -> T {
    try await withTestDatabase { client, _ in
        let router = try buildRouter(
            configuration: configuration,
            engine: Engine(client: client, configuration: configuration.engine, logger: testLogger),
            migrations: Migrations(client: client, directory: configuration.migrationsDirectory, logger: testLogger))
        let app = Application(router: router, logger: testLogger)
        return try await app.boundedTest(.router) { testClient in try await body(testClient, client) }
    }
}

/// Runs `body` against the whole application over a real socket (`.live`), as `serve` builds it.
public func withLiveApp<T: Sendable>(
    _ body: @Sendable @escaping (any TestClientProtocol, PostgresClient) async throws -> T
)
    async throws -> T
{
    try await withTestDatabase { client, databaseConfiguration in
        let app = try await buildApplication(
            configuration: testConfiguration(), database: .external(databaseConfiguration), logger: testLogger
        )
        return try await app.boundedTest(.live) { testClient in try await body(testClient, client) }
    }
}

extension PostgresClient {
    /// Row counts of every table ingest writes to, to show nothing was written.
    public func writtenRows() async throws -> [String: Int] {
        var counts: [String: Int] = [:]
        for table in ["venues", "devices", "checkins", "aggregation_queue"] {
            counts[table] = try await count(table)
        }
        return counts
    }
}

extension DeviceKey {
    /// The device key of test servers (a real server's is its own secret).
    public static let testSecret = "hearclear-tests-device-key-0123456789abcdef"
    public static let tests = try! DeviceKey(secret: testSecret)

    /// The short id an admin or a phone is shown for `deviceID` on a test server: cut from its
    /// keyed form.
    public static func testShort(_ deviceID: String) -> String {
        DeviceIdentity.shortened(tests.keyed(deviceID))
    }
}

extension Engine {
    /// The engine of a test server on `database`: what a test reads or sets up beside the HTTP
    /// API goes through it, as the server's own parts do, never through the Store.
    public static func testing(_ database: PostgresClient, configure: (inout EngineConfiguration) -> Void = { _ in })
        -> Engine
    {
        var configuration = testConfiguration().engine
        configure(&configuration)
        return Engine(client: database, configuration: configuration, logger: testLogger)
    }
}
