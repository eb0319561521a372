import HearClearModel
import HearClearStore
import Logging
import PostgresNIO

/// `/ready`'s question: is the database there and up to date? A slow answer is not an outage
/// (docs/ARCHITECTURE.md, "When the database is away"): when the pool's query does not answer
/// within ``limit`` (every connection busy on a loaded server, say), the database is asked
/// directly on a connection of its own, outside the pool. A refused or lost connection, or an
/// error of the classes that mean the database is gone (``DatabaseOutage/isOutage(_:)``), is an
/// outage and closes the gate; anything else that answers, or no answer yet, is `slow`, and the
/// gate stays as it is.
public struct DatabaseReadiness: Sendable {
    /// What the check found: ready, migrations pending, slow, or unreachable (with why).
    public enum State: Sendable, Equatable {
        case ready
        case migrationsPending
        /// The database did not answer within the limit, but is not known to be gone.
        case slow(String)
        case unreachable(String)
    }

    /// Asks through the pool whether every migration is applied.
    let migrations: Migrations
    /// Where the direct probe connects; `nil`: no probe, a timeout is `slow`.
    let endpoint: DatabaseEndpoint?
    let outage: DatabaseOutage
    /// How long the pool's query may take.
    let limit: Duration
    /// How long the direct probe may take, connecting included.
    let probeLimit: Duration

    /// Asks through `migrations`' pool, and `endpoint` directly when that takes over `limit`.
    public init(
        migrations: Migrations, endpoint: DatabaseEndpoint?, outage: DatabaseOutage, limit: Duration,
        probeLimit: Duration? = nil
    ) {
        self.migrations = migrations
        self.endpoint = endpoint
        self.outage = outage
        self.limit = limit
        self.probeLimit = probeLimit ?? limit
    }

    /// Asks the database, records an outage (or its end) in ``outage``, and says what it found.
    public func check(logger: Logger) async -> State {
        do {
            let upToDate = try await withTimeout(limit) { try await migrations.isUpToDate() }
            outage.answered(logger: logger)
            return upToDate ? .ready : .migrationsPending
        } catch is TimeoutError {
            return await probe(logger: logger)
        } catch  where DatabaseOutage.isOutage(error) {
            outage.failed(error, logger: logger)
            return .unreachable("\(error)")
        } catch {
            logger.warning("readiness check failed", metadata: ["error": "\(error)"])
            return .unreachable("\(error)")
        }
    }

    /// After the pool's query ran out of time: the database on a connection of its own.
    private func probe(logger: Logger) async -> State {
        let waited = "no answer through the connection pool within \(limit)"
        guard let endpoint else {
            logger.warning("readiness check slow", metadata: ["detail": "\(waited)"])
            return .slow(waited)
        }
        switch await endpoint.probe(within: probeLimit, logger: logger) {
        case .answered:
            outage.answered(logger: logger)
            logger.warning("readiness check slow", metadata: ["detail": "\(waited); a connection of its own answered"])
            return .slow("\(waited); a connection of its own answered")
        case .noAnswer:
            logger.warning("readiness check slow", metadata: ["detail": "\(waited), nor on a connection of its own"])
            return .slow("\(waited), nor on a connection of its own")
        case .gone(let error):
            outage.failed(error, logger: logger)
            return .unreachable("\(error)")
        }
    }
}

/// Where a database listens and who logs in, as a client configuration names them: what the
/// readiness probe connects to.
public struct DatabaseEndpoint: Sendable {
    enum Address: Sendable {
        case tcp(host: String, port: Int)
        case unixSocket(path: String)
    }

    let address: Address
    let username: String
    let password: String?
    let database: String?

    /// Where a client configuration connects; nil without a socket path or a host and port.
    public init?(_ configuration: PostgresClient.Configuration) {
        if let path = configuration.unixSocketPath {
            address = .unixSocket(path: path)
        } else if let host = configuration.host, let port = configuration.port {
            address = .tcp(host: host, port: port)
        } else {
            return nil
        }
        username = configuration.username
        password = configuration.password
        database = configuration.database
    }

    enum Probe: Sendable {
        /// It answered: a result, or a server's error (a refused login is an answer too).
        case answered
        /// Neither an answer nor a refusal within the limit.
        case noAnswer
        /// Refused or lost: an outage.
        case gone(any Error)
    }

    /// Connects and runs `SELECT 1`, within `limit`. Without TLS: a server that insists on it
    /// refuses the login, which is an answer too.
    func probe(within limit: Duration, logger: Logger) async -> Probe {
        var configuration: PostgresConnection.Configuration
        switch address {
        case .tcp(let host, let port):
            configuration = .init(
                host: host, port: port, username: username, password: password, database: database, tls: .disable)
        case .unixSocket(let path):
            configuration = .init(unixSocketPath: path, username: username, password: password, database: database)
        }
        configuration.options.connectTimeout = .init(limit)
        do {
            try await withTimeout(limit) { [configuration] in
                try await DatabaseProbe.selectOne(configuration: configuration, logger: logger)
            }
            return .answered
        } catch is TimeoutError {
            return .noAnswer
        } catch  where DatabaseOutage.isOutage(error) {
            return .gone(error)
        } catch {
            return .answered
        }
    }
}
