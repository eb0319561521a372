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

/// The server as the meter's tests run it: the real router, or the whole application on a real
/// socket (`.live`, where the transport matters), on a fresh migrated database.
public enum MeterServer {
    public static var configuration: ServerConfiguration {
        var configuration = ServerConfiguration()
        configuration.resourcesDirectory = TestCluster.repositoryRoot
        configuration.port = 0
        configuration.databaseConnections = 4
        configuration.adminPasswordHash = AdminTestCredentials.passwordHash
        configuration.engine.deviceKey = DeviceKey.tests
        return configuration
    }

    public static let logger: Logger = {
        var logger = Logger(label: "hearclear.test.meter")
        logger.logLevel = .warning
        return logger
    }()

    /// `configure` changes the configuration first (e.g. a shorter meter limit).
    public static func withRouter<T: Sendable>(
        configure: @Sendable (inout ServerConfiguration) -> Void = { _ in },
        _ body: @Sendable @escaping (any TestClientProtocol) async throws -> T
    ) async throws -> T {
        try await withTestDatabase { client, _ in
            var configuration = configuration
            configure(&configuration)
            let migrations = try Migration.load(from: configuration.migrationsDirectory)
            let router = try buildRouter(
                configuration: configuration,
                engine: Engine(client: client, configuration: configuration.engine, logger: logger),
                migrations: Migrations(client: client, migrations: migrations, logger: logger))
            return try await Application(router: router, logger: logger).boundedTest(.router) { try await body($0) }
        }
    }

    public static func withLive<T: Sendable>(
        configure: @Sendable (inout ServerConfiguration) -> Void = { _ in },
        _ body: @Sendable @escaping (any TestClientProtocol, PostgresClient) async throws -> T
    ) async throws -> T {
        try await withTestDatabase { client, databaseConfiguration in
            var configuration = configuration
            configure(&configuration)
            let app = try await buildApplication(
                configuration: configuration, database: .external(databaseConfiguration), logger: logger)
            return try await app.boundedTest(.live) { try await body($0, client) }
        }
    }
}
