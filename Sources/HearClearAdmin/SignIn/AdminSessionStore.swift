import Crypto
import Foundation
import HearClearEngine
import HearClearModel
import Hummingbird

/// Admin sessions as cookies: the cookie holds a random 256-bit token; the database holds its
/// SHA-256 with the user, the session's CSRF token and its expiry (see `admin_sessions`).
struct AdminSessionStore: Sendable {
    static let cookieName = "hearclear_admin"
    /// The login form's own CSRF token, double-submitted: this cookie and the form's `csrf` field.
    static let loginCookieName = "hearclear_login"
    static let cookiePath = "/farmer"

    let repository: AdminSessions
    /// Sessions last this long from login, then the admin signs in again.
    let lifetimeSeconds: Int
    let secureCookie: Bool

    func start(username: String, remoteAddress: String) async throws -> (token: String, session: AdminSession) {
        let token = Self.randomToken()
        let session = try await repository.create(
            tokenSHA256: Self.digest(token), username: username, csrfToken: Self.randomToken(),
            lifetimeSeconds: lifetimeSeconds, remoteAddress: remoteAddress
        )
        return (token, session)
    }

    /// The live session the request's cookie names, if any.
    func session(for request: Request) async throws -> AdminSession? {
        guard let token = request.cookies[Self.cookieName]?.value, Self.isToken(token) else { return nil }
        return try await repository.find(tokenSHA256: Self.digest(token))
    }

    func end(for request: Request) async throws {
        guard let token = request.cookies[Self.cookieName]?.value, Self.isToken(token) else { return }
        try await repository.delete(tokenSHA256: Self.digest(token))
    }

    func sessionCookie(_ token: String) -> Cookie {
        cookie(Self.cookieName, value: token, maxAge: lifetimeSeconds)
    }

    func loginCookie(_ token: String) -> Cookie {
        cookie(Self.loginCookieName, value: token, maxAge: 3600)
    }

    /// Replaces the cookie `name` with an empty one that expires at once.
    func expiredCookie(_ name: String) -> Cookie {
        cookie(name, value: "", maxAge: 0)
    }

    private func cookie(_ name: String, value: String, maxAge: Int) -> Cookie {
        Cookie(
            name: name, value: value, maxAge: maxAge, path: Self.cookiePath, secure: secureCookie, httpOnly: true,
            sameSite: .strict
        )
    }

    /// 32 random bytes, base64url without padding (43 characters).
    static func randomToken() -> String {
        SymmetricKey(size: .bits256).withUnsafeBytes { Data($0) }.base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    static func isToken(_ text: String) -> Bool {
        text.utf8.count == 43
            && text.utf8.allSatisfy { byte in
                (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
                    || byte == 0x2D || byte == 0x5F
            }
    }

    static func digest(_ token: String) -> Data {
        Data(SHA256.hash(data: Data(token.utf8)))
    }

    /// Compares without stopping at the first difference, so timing tells nothing of the secret.
    static func constantTimeEquals(_ a: String, _ b: String) -> Bool {
        let left = Array(a.utf8)
        let right = Array(b.utf8)
        var difference = UInt8(left.count == right.count ? 0 : 1)
        for index in 0..<max(left.count, right.count) {
            let x = index < left.count ? left[index] : 0
            let y = index < right.count ? right[index] : 0
            difference |= x ^ y
        }
        return difference == 0
    }
}
