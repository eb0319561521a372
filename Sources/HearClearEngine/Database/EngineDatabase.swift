import HearClearStore
import Logging
import PostgresNIO
import ServiceLifecycle

/// Where the server's database comes from.
public enum DatabaseSource: Sendable {
    /// Start the embedded PostgreSQL under the data directory.
    case embedded
    /// Use an existing database (`DATABASE_URL`, or a test database).
    case external(PostgresClient.Configuration)

    /// `DATABASE_URL` when set, else the embedded PostgreSQL.
    public static func configured(_ configuration: EngineConfiguration) throws -> DatabaseSource {
        guard let url = configuration.databaseURL else { return .embedded }
        return .external(try DatabaseURL.configuration(url))
    }
}

/// The database a server runs on, opened: its client (and the replica's, with
/// `DATABASE_READ_URL`), its migrations, and the services that must run for it (the clients, and
/// the embedded PostgreSQL's stop at shutdown). The server builds its ``Engine`` on it.
public struct EngineDatabase: Sendable {
    public let client: PostgresClient
    public let replica: PostgresClient?
    /// Where `client` connects (``DatabaseReadiness``'s probe).
    public let endpoint: DatabaseEndpoint?
    public let migrations: Migrations
    /// Run these, in this order, for the database to be usable (stopped in reverse order: the
    /// embedded PostgreSQL last).
    public let services: [any Service]

    /// Starts the embedded PostgreSQL when `source` says so, loads the migrations of
    /// `configuration`'s resources, and makes the clients (with `databaseConnections` each).
    public static func open(_ source: DatabaseSource, configuration: EngineConfiguration, logger: Logger) throws
        -> EngineDatabase
    {
        let migrations = try Migration.load(from: configuration.migrationsDirectory)
        var services: [any Service] = []
        var clientConfiguration: PostgresClient.Configuration
        switch source {
        case .external(let external):
            clientConfiguration = external
        case .embedded:
            let server = try EmbeddedPostgres.start(dataDirectory: configuration.dataDirectory, logger: logger)
            services.append(EmbeddedPostgresService(server: server))
            clientConfiguration = server.configuration(database: "postgres")
        }
        clientConfiguration = CheckinPartitions.configured(clientConfiguration)
        clientConfiguration.options.maximumConnections = configuration.databaseConnections
        let client = PostgresClient(configuration: clientConfiguration, backgroundLogger: logger)
        services.append(client)
        var replica: PostgresClient?
        if let url = configuration.databaseReadURL {
            var replicaConfiguration = CheckinPartitions.configured(try DatabaseURL.configuration(url))
            replicaConfiguration.options.maximumConnections = configuration.databaseConnections
            let made = PostgresClient(configuration: replicaConfiguration, backgroundLogger: logger)
            services.append(made)
            replica = made
        }
        return EngineDatabase(
            client: client, replica: replica, endpoint: DatabaseEndpoint(clientConfiguration),
            migrations: Migrations(client: client, migrations: migrations, logger: logger), services: services)
    }

    /// The engine over this database.
    public func engine(configuration: EngineConfiguration, logger: Logger) -> Engine {
        Engine(client: client, replica: replica, endpoint: endpoint, configuration: configuration, logger: logger)
    }
}

extension EngineDatabase {
    /// The database of a one-shot command (`devices`, `recompute`, `migrate`, …): DATABASE_URL,
    /// else the embedded PostgreSQL of the data directory, the one a running server holds or one
    /// started for the duration (and stopped after). Applies the pending migrations, keys stored
    /// device ids, then runs `body` with the engine over it and the migrations just applied. The
    /// pool logs only errors: it warns when a query races its own start-up, noise for a command.
    public static func session<T: Sendable>(
        configuration: EngineConfiguration, logger: Logger, _ body: (Engine, [Int]) async throws -> T
    ) async throws -> T {
        let migrations = try Migration.load(from: configuration.migrationsDirectory)
        var embedded: EmbeddedPostgres?
        defer { embedded?.stop() }
        let clientConfiguration: PostgresClient.Configuration
        if let url = configuration.databaseURL {
            clientConfiguration = try DatabaseURL.configuration(url)
        } else if let running = EmbeddedPostgres.runningServer(dataDirectory: configuration.dataDirectory) {
            clientConfiguration = running
        } else {
            let server = try EmbeddedPostgres.start(dataDirectory: configuration.dataDirectory, logger: logger)
            embedded = server
            clientConfiguration = server.configuration()
        }
        var poolLogger = logger
        poolLogger.logLevel = .error
        // The server's session settings too (its statements on `checkins` plan as they do there).
        let client = PostgresClient(
            configuration: CheckinPartitions.configured(clientConfiguration), backgroundLogger: poolLogger)
        return try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await client.run() }
            defer { group.cancelAll() }
            let applied = try await MigrationRunner(client: client, migrations: migrations, logger: logger).apply()
            let engine = Engine(client: client, configuration: configuration, logger: logger)
            try await engine.keyStoredDevices()
            return try await body(engine, applied)
        }
    }
}

/// The schema's migrations (`Migrations/*.sql`) over one database: applied at start (under an
/// advisory lock, so instances starting together apply each once), and checked by `/ready`.
public struct Migrations: Sendable {
    let runner: MigrationRunner

    /// `migrations` as loaded (or none): within the package only, as the Store is.
    package init(client: PostgresClient, migrations: [Migration], logger: Logger) {
        runner = MigrationRunner(client: client, migrations: migrations, logger: logger)
    }

    /// `directory`'s migrations over `client`.
    public init(client: PostgresClient, directory: String, logger: Logger) throws {
        self.init(client: client, migrations: try Migration.load(from: directory), logger: logger)
    }

    /// Applies what is pending; the versions applied.
    public func apply() async throws -> [Int] { try await runner.apply() }

    /// Whether every migration is applied.
    public func isUpToDate() async throws -> Bool { try await runner.isUpToDate() }
}

/// Stops the embedded PostgreSQL after everything else has shut down (services stop in
/// reverse order, and this one is added first).
struct EmbeddedPostgresService: Service {
    let server: EmbeddedPostgres

    func run() async throws {
        try? await gracefulShutdown()
        server.stop()
    }
}
