import Foundation
import HearClearModel

/// Locates the PostgreSQL server programs (`initdb`, `postgres`).
///
/// Debian does not put them on `PATH`: they live under `/usr/lib/postgresql/<version>/bin`.
/// The search order is `HEARCLEAR_PG_BINDIR`, `pg_config --bindir`, the newest
/// `/usr/lib/postgresql/*/bin`, then `PATH`.
public struct PostgresBinaries: Sendable {
    public let initdb: String
    public let postgres: String
    /// `pg_basebackup`, beside the others (test replicas).
    public var pgBasebackup: String { URL(fileURLWithPath: initdb).deletingLastPathComponent().path + "/pg_basebackup" }

    public static let debianPackageHint =
        "PostgreSQL server programs (initdb, postgres) not found: install the Debian package 'postgresql' (apt-get install postgresql), or run 'make deps'"

    /// - Parameter systemRoot: where Debian keeps versioned server programs (tests change it).
    public static func locate(
        environment: [String: String] = ProcessInfo.processInfo.environment,
        systemRoot: String = "/usr/lib/postgresql", usePgConfig: Bool = true
    ) throws -> PostgresBinaries {
        for directory in candidateDirectories(
            environment: environment, systemRoot: systemRoot, usePgConfig: usePgConfig)
        {
            let initdb = directory + "/initdb"
            let postgres = directory + "/postgres"
            if FileManager.default.isExecutableFile(atPath: initdb),
                FileManager.default.isExecutableFile(atPath: postgres)
            {
                return PostgresBinaries(initdb: initdb, postgres: postgres)
            }
        }
        throw EmbeddedPostgresError.binariesNotFound(debianPackageHint)
    }

    static func candidateDirectories(environment: [String: String], systemRoot root: String, usePgConfig: Bool)
        -> [String]
    {
        var directories: [String] = []
        if let explicit = environment["HEARCLEAR_PG_BINDIR"], !explicit.isEmpty {
            directories.append(explicit)
        }
        if usePgConfig, let bindir = try? ProcessRunner.output(["pg_config", "--bindir"]) {
            directories.append(bindir.trimmingCharacters(in: .whitespacesAndNewlines))
        }
        let versions = (try? FileManager.default.contentsOfDirectory(atPath: root)) ?? []
        for version in versions.sorted(by: { (Int($0) ?? 0) > (Int($1) ?? 0) }) {
            directories.append("\(root)/\(version)/bin")
        }
        for entry in (environment["PATH"] ?? "").split(separator: ":") {
            directories.append(String(entry))
        }
        return directories
    }
}
