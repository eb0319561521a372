import Logging
import PostgresNIO
import Synchronization

/// Tells a database outage from other failures, and logs it once: the first failure after the
/// database answered is an `error` line ("database unreachable"), the ones after it are not
/// logged, and the first success after it is a `notice` ("database reachable again"). Requests
/// answer 503 meanwhile (docs/ARCHITECTURE.md, "When the database is away"), the worker waits.
/// One per ``Engine``: its requests, worker and listeners share it.
public final class DatabaseOutage: Sendable {
    private let down = Atomic<Bool>(false)
    private let ends = Atomic<Int>(0)

    /// No outage known yet: the database is taken to answer until something fails.
    public init() {}

    /// Whether `error` says the database cannot be reached (rather than that a query was wrong):
    /// a connection refused, lost or closed, the pool shut or unable to connect, or the server
    /// shutting down or starting (SQLSTATE classes 08 and 57P).
    public static func isOutage(_ error: any Error) -> Bool {
        // PostgresNIO's pool gives up connecting with a `ConnectionPoolError` of its underscored
        // module (`connectionCreationCircuitBreakerTripped`): known by its type's name, so as not
        // to depend on a module PostgresNIO does not promise.
        if String(describing: type(of: error)) == "ConnectionPoolError" { return true }
        // A request refused because the database is known to be away. A call that did not
        // answer in time (``TimeoutError``) is not an outage: a busy database is slow, not gone
        // (``DatabaseReadiness`` tells the two apart).
        if error is DatabaseUnavailable { return true }
        guard let error = error as? PSQLError else { return false }
        switch error.code {
        case .connectionError, .serverClosedConnection, .clientClosedConnection, .uncleanShutdown, .poolClosed:
            return true
        case .server:
            let state = error.serverInfo?[.sqlState] ?? ""
            return state.hasPrefix("08") || state.hasPrefix("57P")
        default:
            return error.underlying.map(isOutage) ?? false
        }
    }

    /// Records a failure; logs it when it is the first since the database last answered.
    public func failed(_ error: any Error, logger: Logger) {
        let wasDown = down.exchange(true, ordering: .relaxed)
        if !wasDown {
            logger.error(
                "database unreachable; answering 503 until it is back",
                metadata: ["error": "\(String(reflecting: error).prefix(500))"])
        }
    }

    /// Records a success; logs the recovery when the database was away.
    public func answered(logger: Logger) {
        let wasDown = down.exchange(false, ordering: .relaxed)
        if wasDown {
            ends.add(1, ordering: .relaxed)
            logger.notice("database reachable again")
        }
    }

    /// How many outages have ended: work begun before the last one ended may be stuck on a
    /// connection that died with it.
    public var endedOutages: Int { ends.load(ordering: .relaxed) }

    /// Whether the last thing known is a failure.
    public var isDown: Bool { down.load(ordering: .relaxed) }
}

/// A request refused without trying the database, because it is known to be away.
public struct DatabaseUnavailable: Error, CustomStringConvertible {
    /// The refusal a request throws instead of trying the database.
    public init() {}
    public var description: String { "the database is away" }
}
