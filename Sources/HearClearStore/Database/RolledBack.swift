import Logging
import PostgresNIO

/// A transaction PostgreSQL rolled back on its own (SQLSTATE class 40: a deadlock it broke,
/// 40P01, or a serialization failure, 40001): nothing of it was kept, so running it again as it
/// was is safe, and it is expected to succeed, the transaction it met having gone on.
enum RolledBack {
    /// Runs of a rolled-back transaction before its error is thrown.
    static let attempts = 3

    static func isRolledBack(_ error: any Error) -> Bool {
        (error as? PSQLError)?.sqlState?.hasPrefix("40") ?? false
    }

    /// Runs `transaction` (a whole transaction: one statement alone, or BEGIN to COMMIT) again
    /// when PostgreSQL rolled it back, up to ``attempts`` times in all.
    static func retrying<Result>(
        _ what: String, logger: Logger, isolation: isolated (any Actor)? = #isolation,
        _ transaction: () async throws -> Result
    ) async throws -> Result {
        var attempt = 1
        while true {
            do {
                return try await transaction()
            } catch  where attempt < attempts && isRolledBack(error) {
                logger.notice(
                    "\(what) rolled back by the database; running it again",
                    metadata: [
                        "attempt": "\(attempt)", "sqlstate": "\((error as? PSQLError)?.sqlState ?? "")",
                    ])
                attempt += 1
            }
        }
    }
}
