import HummingbirdBcrypt

/// The admin account of the tests; a cost-4 hash keeps logins fast.
public enum AdminTestCredentials {
    public static let user = "admin"
    public static let password = "correct horse battery staple"
    public static let passwordHash = Bcrypt.hash(password, cost: 4)
}
