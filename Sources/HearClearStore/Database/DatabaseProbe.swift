import Logging
import NIOPosix
import PostgresNIO

/// One question to a database on a connection of its own, outside any pool (the readiness
/// probe's: is it there at all?).
public enum DatabaseProbe {
    /// Connects with `configuration`, runs `SELECT 1` and closes; throws what went wrong.
    public static func selectOne(configuration: PostgresConnection.Configuration, logger: Logger) async throws {
        let connection = try await PostgresConnection.connect(
            on: MultiThreadedEventLoopGroup.singleton.any(), configuration: configuration, id: 0, logger: logger)
        do {
            _ = try await connection.query("SELECT 1", logger: logger).collect()
        } catch {
            try? await connection.close()
            throw error
        }
        try? await connection.close()
    }
}
