import Foundation
import HearClearEngine
import HearClearModel
import HummingbirdBcrypt
import Logging

/// The admin's user name and bcrypt password hash (docs/ARCHITECTURE.md, "Admin"), from the
/// settings: the hash itself, else a password hashed at start, else a password generated on
/// the first start, shown once on stdout, whose hash alone is kept in
/// `<data-dir>/admin-password.bcrypt` for later starts.
public struct AdminCredentials: Sendable {
    public let username: String
    public let passwordHash: String

    static let hashFileName = "admin-password.bcrypt"
    /// 2^12 rounds: about a quarter of a second per check on this machine's cores.
    static let cost: UInt8 = 12

    public init(username: String, passwordHash: String) throws {
        guard Self.isBcryptHash(passwordHash) else {
            throw ConfigurationError.invalid(
                "the admin password hash is not a bcrypt hash ($2a$, $2b$ or $2y$, cost, 53 characters)"
            )
        }
        self.username = username
        self.passwordHash = passwordHash
    }

    /// Resolves the credentials; `announce` receives the generated password's notice.
    public static func resolve(
        _ settings: AdminSettings, logger: Logger, announce: (String) -> Void = printFlushed
    ) throws -> AdminCredentials {
        let user = settings.user
        if let hash = settings.passwordHash?.trimmingCharacters(in: .whitespacesAndNewlines) {
            return try AdminCredentials(username: user, passwordHash: hash)
        }
        if let password = settings.password, !password.isEmpty {
            return try AdminCredentials(username: user, passwordHash: Bcrypt.hash(password, cost: cost))
        }
        let path = settings.dataDirectory + "/" + hashFileName
        if let hash = DataDirectorySecret.read(path) {
            logger.info("admin password hash read from \(path)")
            return try AdminCredentials(username: user, passwordHash: hash)
        }
        let password = generatedPassword()
        let credentials = try AdminCredentials(username: user, passwordHash: Bcrypt.hash(password, cost: cost))
        try DataDirectorySecret.write(
            credentials.passwordHash, to: path, in: settings.dataDirectory,
            otherwise: "HEARCLEAR_ADMIN_PASSWORD_HASH or HEARCLEAR_ADMIN_PASSWORD")
        announce(
            """
            HearClear admin: neither HEARCLEAR_ADMIN_PASSWORD_HASH nor HEARCLEAR_ADMIN_PASSWORD is set, so a password was generated.
              /farmer user:     \(user)
              /farmer password: \(password)
            It is shown only this once; only its bcrypt hash is kept, in \(path) (delete the file for a new one).
            """
        )
        return credentials
    }

    /// Writes the notice straight to standard output. `print` buffers it when standard output is
    /// a pipe (`docker logs`, systemd's journal), where the password shown only once would wait,
    /// unseen, for kilobytes more of output.
    public static func printFlushed(_ notice: String) {
        FileHandle.standardOutput.write(Data((notice + "\n").utf8))
    }

    /// 20 characters from 31 unambiguous ones (about 99 bits), in groups of five for reading aloud.
    static func generatedPassword() -> String {
        let alphabet = Array("abcdefghjkmnpqrstuvwxyz23456789")
        var generator = SystemRandomNumberGenerator()
        let characters = (0..<20).map { _ in alphabet[Int.random(in: 0..<alphabet.count, using: &generator)] }
        return stride(from: 0, to: 20, by: 5).map { String(characters[$0..<$0 + 5]) }.joined(separator: "-")
    }

    static func isBcryptHash(_ hash: String) -> Bool {
        let parts = hash.split(separator: "$", omittingEmptySubsequences: false)
        guard parts.count == 4, parts[0].isEmpty, ["2a", "2b", "2y"].contains(parts[1]),
            let cost = Int(parts[2]), parts[2].count == 2, (4...31).contains(cost), parts[3].count == 53
        else { return false }
        return parts[3].allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "." || $0 == "/") }
    }
}
