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
        try await withConnection { connection in try await connection.transaction(logger: logger, body) }
    }
}

extension PostgresConnection {
    /// Runs `body` in a transaction on this connection (which must have none open), rolling back
    /// and rethrowing when it throws.
    func transaction<Result>(
        logger: Logger, isolation: isolated (any Actor)? = #isolation,
        _ body: (PostgresConnection) async throws -> Result
    ) async throws -> Result {
        try await query("BEGIN", logger: logger)
        do {
            let result = try await body(self)
            try await query("COMMIT", logger: logger)
            return result
        } catch {
            _ = try? await query("ROLLBACK", logger: logger)
            throw error
        }
    }
}
