import Foundation
import HearClearModel

#if canImport(Glibc)
    import Glibc
#endif

/// The account the embedded cluster runs as.
///
/// PostgreSQL refuses to run as root. When HearClear runs as root (as CI does) the cluster
/// runs as `postgres` (made by Debian's package) or, failing that, a `hearclear` system user
/// created here. `launchPrefix` is what to put before a program to run it as that user.
struct ClusterUser: Sendable {
    let name: String
    let uid: UInt32
    let gid: UInt32
    let isCurrentUser: Bool

    static func resolve() throws -> ClusterUser {
        guard geteuid() == 0 else {
            return ClusterUser(name: currentName(), uid: getuid(), gid: getgid(), isCurrentUser: true)
        }
        for name in ["postgres", "hearclear"] {
            if let user = lookup(name) { return user }
        }
        do {
            try ProcessRunner.output([
                "useradd", "--system", "--no-create-home", "--shell", "/usr/sbin/nologin", "hearclear",
            ])
        } catch {
            throw EmbeddedPostgresError.userSetupFailed("\(error)")
        }
        guard let user = lookup("hearclear") else {
            throw EmbeddedPostgresError.userSetupFailed("useradd reported success but no user 'hearclear' exists")
        }
        return user
    }

    /// Gives `path` to this user (recursively) with owner-only permissions.
    func own(_ path: String) throws {
        guard !isCurrentUser else { return }
        try ProcessRunner.output(["chown", "-R", "\(uid):\(gid)", path])
    }

    /// The command prefix that runs a program as this user. When the user cannot traverse
    /// `reaching` (a data dir under /root, say) the program keeps CAP_DAC_READ_SEARCH only.
    func launchPrefix(reaching directory: String) -> [String] {
        guard !isCurrentUser else { return [] }
        let base = ["setpriv", "--reuid=\(uid)", "--regid=\(gid)", "--init-groups"]
        let probe = base + ["--", "/bin/sh", "-c", "cd \"$1\"", "probe", directory]
        if (try? ProcessRunner.output(probe)) != nil {
            return base + ["--"]
        }
        return base + ["--inh-caps=+dac_read_search", "--ambient-caps=+dac_read_search", "--"]
    }

    private static func lookup(_ name: String) -> ClusterUser? {
        guard let entry = getpwnam(name) else { return nil }
        return ClusterUser(name: name, uid: entry.pointee.pw_uid, gid: entry.pointee.pw_gid, isCurrentUser: false)
    }

    private static func currentName() -> String {
        guard let entry = getpwuid(getuid()) else { return "hearclear" }
        return String(cString: entry.pointee.pw_name)
    }
}
