/// What the admin is told by the server's configuration (its keys are the server's
/// `hearclear.admin.*`; the engine's settings it reads from the engine).
public struct AdminSettings: Sendable {
    /// The admin's user name at `/farmer`.
    public var user: String
    /// bcrypt hash of the admin password (`$2b$12$…`); wins over `password`.
    public var passwordHash: String?
    /// The admin password in clear, hashed at start. With neither set, a password is generated
    /// once and only its hash kept in `<dataDirectory>/admin-password.bcrypt`.
    public var password: String?
    /// Mark the admin session cookie `Secure` (set it when served over TLS).
    public var secureCookie: Bool
    /// Where a generated password's hash is kept.
    public var dataDirectory: String
    /// The admin's templates and style sheet (`<resources>/Admin`).
    public var templatesDirectory: String

    public init(
        user: String, passwordHash: String?, password: String?, secureCookie: Bool, dataDirectory: String,
        templatesDirectory: String
    ) {
        self.user = user
        self.passwordHash = passwordHash
        self.password = password
        self.secureCookie = secureCookie
        self.dataDirectory = dataDirectory
        self.templatesDirectory = templatesDirectory
    }
}
