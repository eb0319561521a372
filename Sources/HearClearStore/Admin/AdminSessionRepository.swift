import Foundation
import HearClearModel
import Logging
import PostgresNIO

/// Server-side admin sessions, keyed by the SHA-256 of the cookie's token: the table alone opens
/// no session, and logging out (deleting the row) ends it everywhere at once.
public struct AdminSessionRepository: Sendable {
    let client: PostgresClient
    let logger: Logger

    public init(client: PostgresClient, logger: Logger) {
        self.client = client
        self.logger = logger
    }

    /// Stores a new session that ends after `lifetimeSeconds`; returns it.
    public func create(
        tokenSHA256: Data, username: String, csrfToken: String, lifetimeSeconds: Int, remoteAddress: String?
    ) async throws -> AdminSession {
        let rows = try await client.query(
            """
            INSERT INTO admin_sessions (token_sha256, username, csrf_token, expires_at, remote_address)
            VALUES (\(tokenSHA256), \(username), \(csrfToken), now() + make_interval(secs => \(lifetimeSeconds)),
                    \(remoteAddress))
            RETURNING expires_at
            """,
            logger: logger
        )
        for try await expiresAt in rows.decode(Date.self) {
            return AdminSession(username: username, csrfToken: csrfToken, expiresAt: expiresAt)
        }
        throw StoreError.unexpected("session insert returned no row")
    }

    /// The unexpired session with that token hash, if any.
    public func find(tokenSHA256: Data) async throws -> AdminSession? {
        let rows = try await client.query(
            """
            SELECT username, csrf_token, expires_at FROM admin_sessions
            WHERE token_sha256 = \(tokenSHA256) AND expires_at > now()
            """,
            logger: logger
        )
        for try await (username, csrf, expiresAt) in rows.decode((String, String, Date).self) {
            return AdminSession(username: username, csrfToken: csrf, expiresAt: expiresAt)
        }
        return nil
    }

    public func delete(tokenSHA256: Data) async throws {
        try await client.query("DELETE FROM admin_sessions WHERE token_sha256 = \(tokenSHA256)", logger: logger)
    }

    /// Removes sessions that have expired (called at each login).
    public func purgeExpired() async throws {
        try await client.query("DELETE FROM admin_sessions WHERE expires_at <= now()", logger: logger)
    }
}
