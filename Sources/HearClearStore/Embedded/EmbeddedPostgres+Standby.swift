import Foundation
import HearClearModel
import Logging

extension EmbeddedPostgres {
    /// Starts a hot standby of `primary` under `dataDirectory`: a copy taken with
    /// `pg_basebackup -R` (which writes the standby's connection to the primary, over the
    /// primary's Unix socket), then kept up to date by streaming replication. For tests of read
    /// replicas; `initdb --auth trust` lets the cluster's own user replicate.
    ///
    /// - Parameter slot: a physical replication slot to create on the primary for the standby, so
    ///   that the primary keeps the WAL the standby has not received yet. Without one, a
    ///   checkpoint between the copy's end and the standby's first connection (likely on a loaded
    ///   machine) can recycle a segment it needs, and the standby answers for ever without
    ///   replaying anything new.
    public static func startStandby(
        of primary: EmbeddedPostgres, dataDirectory: String, slot: String? = nil, removeWhenStopped: Bool = true,
        logger: Logger
    ) throws -> EmbeddedPostgres {
        try start(dataDirectory: dataDirectory, durable: false, removeWhenStopped: removeWhenStopped, logger: logger) {
            cluster, binaries, user, prefix in
            logger.info("copying a standby of the embedded cluster", metadata: ["cluster": "\(cluster)"])
            try FileManager.default.createDirectory(
                atPath: cluster, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
            try user.own(cluster)
            do {
                try ProcessRunner.output(
                    prefix + [
                        binaries.pgBasebackup, "--pgdata", cluster, "--host", primary.socketDirectory,
                        "--port", "\(port)", "--username", superuser, "--write-recovery-conf",
                        "--wal-method", "stream", "--checkpoint", "fast", "--no-sync",
                    ] + (slot.map { ["--create-slot", "--slot", $0] } ?? []))
            } catch {
                try? FileManager.default.removeItem(atPath: cluster)
                throw EmbeddedPostgresError.startFailed("pg_basebackup failed: \(error)")
            }
        }
    }
}
