import HearClearEngine
import HearClearModel
import HummingbirdBcrypt
import NIOPosix

/// Checks a login against the configured credentials, behind the per-address and per-user
/// backoff of ``LoginThrottle``, and starts a session on success.
struct AdminLogin: Sendable {
    enum Outcome: Sendable {
        case signedIn(token: String)
        case rejected
        case blocked(retryAfterSeconds: Int)
    }

    /// An address may be held back up to 15 minutes; the one admin user only up to a minute, so
    /// that someone guessing from many addresses cannot lock the real admin out for long.
    static let maximumAddressDelaySeconds = 900
    static let maximumUserDelaySeconds = 60

    let credentials: AdminCredentials
    let throttle: LoginThrottle
    let sessions: AdminSessionStore
    let audit: AdminAudit

    func attempt(username: String, password: String, clientAddress: String) async throws -> Outcome {
        let isAdmin = AdminSessionStore.constantTimeEquals(username, credentials.username)
        var keys = [("ip:" + clientAddress, Self.maximumAddressDelaySeconds)]
        if isAdmin { keys.append(("user:" + credentials.username, Self.maximumUserDelaySeconds)) }
        for (key, maximum) in keys {
            if case .blocked(let seconds) = try await throttle.attempt(key: key, maximumDelaySeconds: maximum) {
                return .blocked(retryAfterSeconds: seconds)
            }
        }
        // The hash is checked even for an unknown user, so the time taken does not tell.
        let hash = credentials.passwordHash
        let matches = try await NIOThreadPool.singleton.runIfActive { Bcrypt.verify(password, hash: hash) }
        guard isAdmin, matches else {
            try await audit.record(
                username: String(username.prefix(64)), action: "login failed", subject: clientAddress
            )
            return .rejected
        }
        try await throttle.clear(keys: keys.map(\.0))
        try await sessions.repository.purgeExpired()
        let (token, _) = try await sessions.start(username: credentials.username, remoteAddress: clientAddress)
        try await audit.record(username: credentials.username, action: "login", subject: clientAddress)
        return .signedIn(token: token)
    }
}
