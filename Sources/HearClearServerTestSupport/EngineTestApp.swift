import Foundation
import HearClearEngine
import HearClearModel
import HearClearServer
import HearClearStore
import HearClearTestSupport
import Hummingbird
import HummingbirdTesting
import Logging
import PostgresNIO

/// The whole application (routes, middleware, the aggregation worker) on a fresh test database,
/// built by the same `buildApplication` as `serve`.
public enum EngineTestApp {
    public static let logger: Logger = {
        var logger = Logger(label: "hearclear.tests.engine")
        logger.logLevel = .warning
        return logger
    }()

    public static var configuration: ServerConfiguration {
        var configuration = ServerConfiguration()
        configuration.resourcesDirectory = TestCluster.repositoryRoot
        configuration.databaseConnections = 6
        configuration.adminPasswordHash = AdminTestCredentials.passwordHash
        // Loopback exempt, as an operator exempts their own tools (see `testConfiguration()`).
        configuration.rateLimits.exempt = IPNetwork.loopback
        configuration.engine.deviceKey = DeviceKey.tests
        return configuration
    }

    /// Runs `body` with a test client of the application and a client of its database (for
    /// admin operations and direct checks).
    /// `configure` changes the configuration first.
    public static func run(
        configure: (inout ServerConfiguration) -> Void = { _ in },
        _ body: @escaping @Sendable (any TestClientProtocol, PostgresClient) async throws -> Void
    ) async throws {
        var configuration = configuration
        configure(&configuration)
        try await withTestDatabase { database, databaseConfiguration in
            let app = try await buildApplication(
                configuration: configuration, database: .external(databaseConfiguration), logger: logger)
            try await app.boundedTest(.router) { client in try await body(client, database) }
        }
    }
}
