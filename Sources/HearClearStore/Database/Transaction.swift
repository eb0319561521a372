import Foundation
import HearClearModel
import Logging
import PostgresNIO

extension PostgresClient {
    /// Runs `body` in a transaction, rethrowing `body`'s own error (PostgresNIO's
    /// `withTransaction` wraps it) after rolling back.
    func transaction<Result: Sendable>(
        logger: Logger, _ body: (PostgresConnection) async throws -> Result
    ) async throws -> Result {
        try await withConnection { connection in
            try await connection.query("BEGIN", logger: logger)
            do {
                let result = try await body(connection)
                try await connection.query("COMMIT", logger: logger)
                return result
            } catch {
                _ = try? await connection.query("ROLLBACK", logger: logger)
                throw error
            }
        }
    }
}
