import Foundation
import HearClearModel
import Logging

#if canImport(Glibc)
    import Glibc
#endif

extension EmbeddedPostgres {
    static func initialise(
        cluster: String, binaries: PostgresBinaries, user: ClusterUser, prefix: [String], durable: Bool, logger: Logger
    ) throws {
        logger.info("initialising embedded PostgreSQL cluster", metadata: ["cluster": "\(cluster)"])
        try? FileManager.default.removeItem(atPath: cluster)
        try FileManager.default.createDirectory(
            atPath: cluster, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700]
        )
        try user.own(cluster)
        var command =
            prefix + [
                binaries.initdb, "--pgdata", cluster, "--username", superuser, "--auth", "trust",
                "--encoding", "UTF8", "--no-locale",
            ]
        if !durable { command.append("--no-sync") }
        do {
            try ProcessRunner.output(command)
        } catch {
            try? FileManager.default.removeItem(atPath: cluster)
            throw EmbeddedPostgresError.initdbFailed("\(error)")
        }
    }

    /// A postmaster left running by a server that was killed: we hold the data-dir lock, so
    /// nobody else owns it. Stop it before starting our own.
    static func stopOrphan(cluster: String, logger: Logger) throws {
        guard let contents = try? String(contentsOfFile: cluster + "/postmaster.pid", encoding: .utf8),
            let pid = contents.split(separator: "\n").first.flatMap({ Int32($0) }), pid > 0, kill(pid, 0) == 0
        else { return }
        logger.warning("stopping a PostgreSQL left running by an earlier server", metadata: ["pid": "\(pid)"])
        kill(pid, SIGINT)
        let deadline = Date().addingTimeInterval(60)
        while kill(pid, 0) == 0 && Date() < deadline { usleep(50_000) }
        guard kill(pid, 0) != 0 else {
            throw EmbeddedPostgresError.startFailed("an earlier PostgreSQL (pid \(pid)) on \(cluster) does not stop")
        }
    }

    /// `<data-dir>/run`, unless its socket path would pass the ~100-byte limit of
    /// `sun_path`; then a private directory under /tmp.
    static func makeSocketDirectory(dataDirectory: String, user: ClusterUser) throws -> (String, Bool) {
        let preferred = dataDirectory + "/run"
        var directory = preferred
        var temporary = false
        if (preferred + "/.s.PGSQL.\(port)").utf8.count > 100 {
            var template = Array("/tmp/hearclear-XXXXXX".utf8CString)
            guard mkdtemp(&template) != nil else {
                throw EmbeddedPostgresError.startFailed("cannot create a socket directory under /tmp")
            }
            directory = String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
            temporary = true
        } else {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        }
        chmod(directory, 0o700)
        try user.own(directory)
        return (directory, temporary)
    }

    static func launch(
        cluster: String, socketDirectory: String, binaries: PostgresBinaries, prefix: [String], durable: Bool,
        logFile: String, removeWhenStopped: String?
    ) throws -> Process {
        var arguments =
            prefix + [
                binaries.postgres, "-D", cluster, "-k", socketDirectory, "-p", "\(port)",
                "-c", "listen_addresses=", "-c", "unix_socket_permissions=0700", "-c", "max_connections=200",
            ]
        if !durable {
            arguments += ["-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off"]
            // A standby's base backup streams the WAL written while it copies; tests that write
            // heavily beside it (50,000 venues at once) could recycle a segment it still needed.
            arguments += ["-c", "wal_keep_size=512MB"]
        }
        if !FileManager.default.fileExists(atPath: logFile) {
            _ = FileManager.default.createFile(atPath: logFile, contents: nil)
        }
        let log = try FileHandle(forWritingTo: URL(fileURLWithPath: logFile))
        try log.seekToEnd()
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = arguments
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = log
        process.standardError = log
        try process.run()
        try startWatchdog(postgresPID: process.processIdentifier, removing: removeWhenStopped)
        return process
    }

    /// Stops the cluster when this process goes away without stopping it (SIGKILL, crash).
    static func startWatchdog(postgresPID: Int32, removing directory: String?) throws {
        var script = """
            while kill -0 \(getpid()) 2>/dev/null && kill -0 \(postgresPID) 2>/dev/null; do sleep 1; done
            kill -INT \(postgresPID) 2>/dev/null
            """
        if let directory {
            script += "\nwhile kill -0 \(postgresPID) 2>/dev/null; do sleep 0.2; done; rm -rf '\(directory)'"
        }
        let watchdog = Process()
        watchdog.executableURL = URL(fileURLWithPath: "/bin/sh")
        watchdog.arguments = ["-c", script]
        watchdog.standardInput = FileHandle.nullDevice
        watchdog.standardOutput = FileHandle.nullDevice
        watchdog.standardError = FileHandle.nullDevice
        try watchdog.run()
    }
}
