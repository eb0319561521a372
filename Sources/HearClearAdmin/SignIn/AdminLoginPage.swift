/// The context of `login.mustache`.
struct AdminLoginPage {
    let title = "Sign in"
    let csrf: String
    /// Where to go after signing in (a `/farmer/` path).
    let next: String
    let username: String
    let error: String?

    /// Only pages of this admin may be returned to after login: no other host, no scheme.
    static func isSafeReturnPath(_ path: String) -> Bool {
        path.hasPrefix("/farmer/") && !path.contains("//") && !path.contains("\\")
            && !path.hasPrefix("/farmer/login") && !path.hasPrefix("/farmer/logout")
            && path.unicodeScalars.allSatisfy { $0.value > 0x20 && $0.value < 0x7F }
    }
}
