import Foundation
import HearClearModel
import Logging
import PostgresNIO

#if canImport(Glibc)
    import Glibc
#endif

/// A private PostgreSQL cluster under `<data-dir>/postgres`, reachable only through a Unix
/// socket, started by `serve` (and by the tests) when no `DATABASE_URL` is given.
///
/// `initdb` runs once; later starts reuse the cluster. A watchdog shell stops the cluster if
/// this process dies without stopping it, and a cluster orphaned by a crash is stopped before
/// a new one starts.
public final class EmbeddedPostgres: Sendable {
    /// The superuser `initdb` creates; socket access is limited to this user and root.
    public static let superuser = "hearclear"
    public static let port = 5432

    public let dataDirectory: String
    public let clusterDirectory: String
    public let socketDirectory: String
    private let process: Process
    private let lock: DataDirectoryLock
    private let temporarySocketDirectory: Bool
    private let logger: Logger

    /// Starts (initialising first when needed) the cluster in `dataDirectory`.
    /// - Parameter durable: `false` turns off fsync, for throwaway test clusters only.
    /// - Parameter removeWhenStopped: delete the whole data directory once PostgreSQL has exited
    ///   (throwaway test clusters).
    public static func start(
        dataDirectory: String, durable: Bool = true, removeWhenStopped: Bool = false, logger: Logger
    ) throws -> EmbeddedPostgres {
        try start(dataDirectory: dataDirectory, durable: durable, removeWhenStopped: removeWhenStopped, logger: logger)
        { cluster, binaries, user, prefix in
            try initialise(
                cluster: cluster, binaries: binaries, user: user, prefix: prefix, durable: durable, logger: logger)
        }
    }

    /// Makes a new cluster in `cluster` (which does not hold one yet), as the cluster's user.
    typealias Creation = (_ cluster: String, _ binaries: PostgresBinaries, _ user: ClusterUser, _ prefix: [String])
        throws -> Void

    /// Starts the cluster in `dataDirectory`, made first by `create` when there is none.
    static func start(
        dataDirectory: String, durable: Bool, removeWhenStopped: Bool, logger: Logger, create: Creation
    ) throws -> EmbeddedPostgres {
        let dataDirectory = URL(fileURLWithPath: dataDirectory).standardizedFileURL.path
        try FileManager.default.createDirectory(atPath: dataDirectory, withIntermediateDirectories: true)
        let lock = try DataDirectoryLock(directory: dataDirectory)
        do {
            let binaries = try PostgresBinaries.locate()
            let user = try ClusterUser.resolve()
            let cluster = dataDirectory + "/postgres"
            let prefix = user.launchPrefix(reaching: dataDirectory)
            if !FileManager.default.fileExists(atPath: cluster + "/PG_VERSION") {
                try create(cluster, binaries, user, prefix)
            }
            try stopOrphan(cluster: cluster, logger: logger)
            let (socketDirectory, temporary) = try makeSocketDirectory(dataDirectory: dataDirectory, user: user)
            let process = try launch(
                cluster: cluster, socketDirectory: socketDirectory, binaries: binaries, prefix: prefix,
                durable: durable, logFile: dataDirectory + "/postgres.log",
                removeWhenStopped: removeWhenStopped ? dataDirectory : nil
            )
            let server = EmbeddedPostgres(
                dataDirectory: dataDirectory, clusterDirectory: cluster, socketDirectory: socketDirectory,
                process: process, lock: lock, temporarySocketDirectory: temporary, logger: logger
            )
            try server.waitUntilReady()
            // Lets other hearclear commands reach this cluster while the server holds it.
            try server.socketPath.write(toFile: socketRecord(dataDirectory), atomically: true, encoding: .utf8)
            logger.info(
                "embedded PostgreSQL ready",
                metadata: ["cluster": "\(cluster)", "socket": "\(socketDirectory)", "user": "\(user.name)"]
            )
            return server
        } catch {
            lock.release()
            throw error
        }
    }

    private init(
        dataDirectory: String, clusterDirectory: String, socketDirectory: String, process: Process,
        lock: DataDirectoryLock, temporarySocketDirectory: Bool, logger: Logger
    ) {
        self.dataDirectory = dataDirectory
        self.clusterDirectory = clusterDirectory
        self.socketDirectory = socketDirectory
        self.process = process
        self.lock = lock
        self.temporarySocketDirectory = temporarySocketDirectory
        self.logger = logger
    }

    static func socketRecord(_ dataDirectory: String) -> String { dataDirectory + "/postgres.socket" }

    /// The connection settings of the cluster a running server holds in `dataDirectory`, or nil
    /// when no server holds it (then `start` is the way in).
    public static func runningServer(dataDirectory: String, database: String = "postgres")
        -> PostgresClient.Configuration?
    {
        let dataDirectory = URL(fileURLWithPath: dataDirectory).standardizedFileURL.path
        guard FileManager.default.fileExists(atPath: dataDirectory + "/hearclear.lock"),
            let socket = try? String(contentsOfFile: socketRecord(dataDirectory), encoding: .utf8),
            FileManager.default.fileExists(atPath: socket)
        else { return nil }
        // Free lock: the record is left over from a server that died; nobody serves the cluster.
        if let probe = try? DataDirectoryLock(directory: dataDirectory) {
            probe.release()
            return nil
        }
        return PostgresClient.Configuration(
            unixSocketPath: socket, username: superuser, password: nil, database: database)
    }

    /// The path of the socket file clients connect to.
    public var socketPath: String { socketDirectory + "/.s.PGSQL.\(Self.port)" }

    public var isRunning: Bool { process.isRunning }

    /// Connection settings for `database` on this cluster.
    public func configuration(database: String = "postgres") -> PostgresClient.Configuration {
        PostgresClient.Configuration(
            unixSocketPath: socketPath, username: Self.superuser, password: nil, database: database)
    }

    /// Fast shutdown (SIGINT: open sessions are ended, commits are kept), waiting up to a minute.
    public func stop() {
        if process.isRunning {
            kill(process.processIdentifier, SIGINT)
            let deadline = Date().addingTimeInterval(60)
            while process.isRunning && Date() < deadline { usleep(20_000) }
            if process.isRunning { kill(process.processIdentifier, SIGQUIT) }
            process.waitUntilExit()
            logger.info("embedded PostgreSQL stopped", metadata: ["cluster": "\(clusterDirectory)"])
        }
        if temporarySocketDirectory { try? FileManager.default.removeItem(atPath: socketDirectory) }
        try? FileManager.default.removeItem(atPath: Self.socketRecord(dataDirectory))
        lock.release()
    }

    private func waitUntilReady() throws {
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline {
            guard process.isRunning else {
                throw EmbeddedPostgresError.startFailed("postgres exited: \(logTail())")
            }
            if let status = try? String(contentsOfFile: clusterDirectory + "/postmaster.pid", encoding: .utf8),
                status.split(separator: "\n", omittingEmptySubsequences: false).dropFirst(7).first?.trimmingCharacters(
                    in: .whitespaces) == "ready",
                FileManager.default.fileExists(atPath: socketPath)
            {
                return
            }
            usleep(20_000)
        }
        stop()
        throw EmbeddedPostgresError.startFailed("not ready after 60 s: \(logTail())")
    }

    private func logTail() -> String {
        let log = (try? String(contentsOfFile: dataDirectory + "/postgres.log", encoding: .utf8)) ?? ""
        return String(log.suffix(1500))
    }
}
