import Configuration
import Foundation
import HearClearEngine
import HearClearModel
import Logging

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
        return try await EngineDatabase.session(configuration: configuration, logger: logger, body)
    }
}
