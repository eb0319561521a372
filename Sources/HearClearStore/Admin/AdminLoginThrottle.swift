import Foundation
import HearClearModel
import Logging
import PostgresNIO

/// Exponential backoff of admin logins per key (`ip:…`, `user:…`), shared by every server
/// instance through `admin_login_throttle`.
///
/// Every attempt is counted as a failure *before* the password is checked, under a row lock, so
/// parallel guesses cannot all pass the check; a successful login clears its keys. The first
/// `freeAttempts − 1` attempts are free; from the `freeAttempts`-th on, each blocks the key for
/// 2^(n − freeAttempts) seconds, up to `maximumDelaySeconds`. A key quiet for an hour starts over.
public struct AdminLoginThrottle: Sendable {
    public enum Decision: Sendable, Equatable {
        case allowed
        case blocked(retryAfterSeconds: Int)
    }

    let client: PostgresClient
    let logger: Logger
    public var freeAttempts = 5

    public init(client: PostgresClient, logger: Logger) {
        self.client = client
        self.logger = logger
    }

    /// The delay after the `failures`-th consecutive failure.
    public func delaySeconds(afterFailures failures: Int, maximumDelaySeconds: Int) -> Int {
        guard failures >= freeAttempts else { return 0 }
        let exponent = min(failures - freeAttempts, 30)
        return min(1 << exponent, maximumDelaySeconds)
    }

    /// Counts an attempt for `key`, or refuses it while the key is blocked.
    public func attempt(key: String, maximumDelaySeconds: Int) async throws -> Decision {
        try await client.transaction(logger: logger) { connection in
            try await connection.query(
                """
                INSERT INTO admin_login_throttle (key, failures, blocked_until, updated_at)
                VALUES (\(key), 0, now(), now()) ON CONFLICT (key) DO NOTHING
                """,
                logger: logger
            )
            let rows = try await connection.query(
                """
                SELECT failures, extract(epoch FROM blocked_until - now())::float8,
                       updated_at < now() - interval '1 hour'
                FROM admin_login_throttle WHERE key = \(key) FOR UPDATE
                """,
                logger: logger
            )
            var state: (Int, Double?, Bool)?
            for try await row in rows.decode((Int, Double?, Bool).self) { state = row }
            guard let (failures, remaining, stale) = state else {
                throw StoreError.unexpected("throttle row for \(key) missing")
            }
            if let remaining, remaining > 0, !stale {
                return .blocked(retryAfterSeconds: Int(remaining.rounded(.up)))
            }
            let count = stale ? 1 : failures + 1
            let delay = delaySeconds(afterFailures: count, maximumDelaySeconds: maximumDelaySeconds)
            try await connection.query(
                """
                UPDATE admin_login_throttle SET failures = \(count),
                    blocked_until = now() + make_interval(secs => \(delay)), updated_at = now()
                WHERE key = \(key)
                """,
                logger: logger
            )
            return .allowed
        }
    }

    /// Forgets the keys (after a successful login) and rows quiet for a day.
    public func clear(keys: [String]) async throws {
        try await client.query(
            """
            DELETE FROM admin_login_throttle
            WHERE key = ANY(\(keys)) OR updated_at < now() - interval '1 day'
            """,
            logger: logger
        )
    }
}
