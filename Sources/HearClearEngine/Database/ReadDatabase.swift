import HearClearStore
import Logging
import PostgresNIO
import ServiceLifecycle
import Synchronization

/// Where reads go: a PostgreSQL streaming replica when one is configured (`DATABASE_READ_URL`) and
/// answering, else the primary. Writes, the queue and LISTEN always use the primary.
///
/// As a `Service` it watches the replica every ``interval``: whether it answers (a replica that
/// does not is left alone, with a log line saying why, until it answers again; a read that fails
/// on it is read again from the primary) and how far it has replayed. ``horizon`` is the latest
/// moment the replica is known to have caught up with: every commit before it is visible there.
/// The read cache keeps an answer read from the replica only if what it depends on last changed
/// before that moment (docs/ARCHITECTURE.md, "Reads and their cache").
public final class ReadDatabase: Service, Sendable {
    public let primary: PostgresClient
    public let replica: PostgresClient?
    let logger: Logger
    /// How often the replica is watched.
    let interval: Duration
    /// How long a read may take on the replica before it is read from the primary instead.
    let replicaTimeout: Duration

    private struct State {
        var answering = false
        /// Every commit on the primary before this moment is visible on the replica.
        var horizon = ContinuousClock.now - .seconds(3600)
        /// Primary positions not yet replayed, with when each was read.
        var pending: [(at: ContinuousClock.Instant, lsn: String)] = []
    }

    private let state = Mutex(State())

    /// Reads go to `replica` while it answers, else to `primary`; it is watched every `interval`.
    public init(
        primary: PostgresClient, replica: PostgresClient?, logger: Logger, interval: Duration = .milliseconds(100),
        replicaTimeout: Duration = .seconds(2)
    ) {
        self.primary = primary
        self.replica = replica
        self.logger = logger
        self.interval = interval
        self.replicaTimeout = replicaTimeout
    }

    /// Whether reads go to the replica now.
    public var usesReplica: Bool { replica != nil && state.withLock { $0.answering } }

    /// `nil` without a replica (reads are as fresh as the primary); else the moment up to which
    /// the replica has replayed every commit.
    public var horizon: ContinuousClock.Instant? {
        replica == nil ? nil : state.withLock { $0.horizon }
    }

    /// Which database a read runs on.
    public enum Side: Sendable {
        case primary, replica
    }

    /// Runs `body` on the replica when it is answering, else (or when it fails there) on the
    /// primary.
    public func read<T: Sendable>(_ body: @escaping @Sendable (Side) async throws -> T) async throws -> T {
        guard replica != nil, usesReplica else { return try await body(.primary) }
        do {
            return try await withTimeout(replicaTimeout) { try await body(.replica) }
        } catch is CancellationError {
            throw CancellationError()
        } catch {
            markNotAnswering(error)
            return try await body(.primary)
        }
    }

    /// ``read(_:)`` for a lookup: what the replica has not replayed yet (a venue just created) is
    /// looked up on the primary.
    public func find<T: Sendable>(_ body: @escaping @Sendable (Side) async throws -> T?) async throws -> T? {
        if let found = try await read(body) { return found }
        return usesReplica ? try await body(.primary) : nil
    }

    /// Watches the replica until shutdown (without one, only waits for shutdown: a service that
    /// returns early would stop the whole service group).
    public func run() async throws {
        guard let replica else {
            try? await gracefulShutdown()
            return
        }
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                await self.watch(replica)
                try? await Task.sleep(for: self.interval)
            }
        }
    }

    /// One look at the replica: is it answering, and how far has it replayed?
    private func watch(_ replica: PostgresClient) async {
        let sampled = ContinuousClock.now
        do {
            let primaryLSN = try await withTimeout(replicaTimeout) {
                try await ReplicationPositions.inserted(on: self.primary, logger: self.logger)
            }
            let replayed = try await withTimeout(replicaTimeout) {
                try await ReplicationPositions.replayed(on: replica, logger: self.logger)
            }
            let came = state.withLock { state -> Bool in
                let came = !state.answering
                state.answering = true
                state.pending.append((sampled, primaryLSN))
                // The newest sample the replica has replayed moves the horizon to when it was read.
                while let first = state.pending.first, Self.compare(first.lsn, replayed) <= 0 {
                    state.horizon = max(state.horizon, first.at)
                    state.pending.removeFirst()
                }
                if state.pending.count > 600 { state.pending.removeFirst(state.pending.count - 600) }
                return came
            }
            if came { logger.info("read replica answering: reads go to it") }
        } catch {
            markNotAnswering(error)
        }
    }

    private func markNotAnswering(_ error: any Error) {
        let went = state.withLock { state -> Bool in
            defer { state.answering = false }
            return state.answering
        }
        if went {
            logger.warning(
                "read replica not answering; reads go to the primary until it answers again",
                metadata: ["error": "\(String(reflecting: error))"])
        }
    }

    /// Orders two WAL positions written `X/Y` (hexadecimal halves).
    static func compare(_ a: String, _ b: String) -> Int {
        func value(_ lsn: String) -> (UInt64, UInt64) {
            let parts = lsn.split(separator: "/")
            return (UInt64(parts.first ?? "", radix: 16) ?? 0, UInt64(parts.last ?? "", radix: 16) ?? 0)
        }
        let (x, y) = (value(a), value(b))
        return x == y ? 0 : (x < y ? -1 : 1)
    }
}
