import Configuration
import Foundation
import HearClearEngine
import HearClearModel
import HearClearStore
import Logging
import PostgresNIO

/// A database for the commands that work on data directly (`devices`, `recompute`, `migrate`):
/// DATABASE_URL, else the embedded PostgreSQL of the data directory: the one a running server
/// holds, or one started for the duration. Pending migrations are applied first; the body gets the
/// engine over that database and the migrations applied.
public enum DatabaseSession {
    /// - Parameter quietLogs: print only warnings unless a log level is asked for (commands
    ///   that print results); `migrate` keeps the server's info logs.
    public static func run<T: Sendable>(
        _ options: ServerOptions, extra: [AbsoluteConfigKey: ConfigValue] = [:], quietLogs: Bool = true,
        _ body: (Engine, [Int]) async throws -> T
    ) async throws -> T {
        var configuration = try EngineConfiguration(reader: try await options.reader(extra: extra))
        // These commands print their results; the server's info logs would drown them.
        if quietLogs, options.logLevel == nil, ProcessInfo.processInfo.environment["HEARCLEAR_LOG_LEVEL"] == nil {
            configuration.logLevel = .warning
        }
        let logger = CommandLogging.bootstrap(configuration)
        try configuration.checkResources()
        configuration = try configuration.resolvingDeviceKey(logger: logger)
        let migrations = try Migration.load(from: configuration.migrationsDirectory)
        var embedded: EmbeddedPostgres?
        defer { embedded?.stop() }
        let clientConfiguration: PostgresClient.Configuration
        if let url = configuration.databaseURL {
            clientConfiguration = try DatabaseURL.configuration(url)
        } else if let running = EmbeddedPostgres.runningServer(dataDirectory: configuration.dataDirectory) {
            clientConfiguration = running
        } else {
            let server = try EmbeddedPostgres.start(dataDirectory: configuration.dataDirectory, logger: logger)
            embedded = server
            clientConfiguration = server.configuration()
        }
        // The pool warns when a query races its own start-up; that is noise for a one-shot command.
        var poolLogger = logger
        poolLogger.logLevel = .error
        // The server's session settings too (its statements on `checkins` plan as they do there).
        let client = PostgresClient(
            configuration: CheckinPartitions.configured(clientConfiguration), backgroundLogger: poolLogger)
        return try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await client.run() }
            defer { group.cancelAll() }
            let applied = try await MigrationRunner(client: client, migrations: migrations, logger: logger).apply()
            let engine = Engine(client: client, configuration: configuration, logger: logger)
            try await engine.keyStoredDevices()
            return try await body(engine, applied)
        }
    }
}
