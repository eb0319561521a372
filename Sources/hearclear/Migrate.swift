import ArgumentParser
import HearClearServer
import HearClearStore
import Logging
import PostgresNIO

struct Migrate: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Apply pending migrations (Migrations/*.sql) and exit.",
        discussion: """
            Each file runs in its own transaction under an advisory lock, and is recorded with its \
            checksum; an applied file that was changed since is refused. Uses DATABASE_URL, else the \
            embedded PostgreSQL of the data directory (the running server's, or started for the duration).
            """
    )

    @OptionGroup var options: ServerOptions

    func run() async throws {
        let configuration = try ServerConfiguration(reader: try await options.reader())
        let logger = Logging.bootstrap(configuration)
        var embedded: EmbeddedPostgres?
        do {
            try configuration.checkResources()
            let migrations = try Migration.load(from: configuration.migrationsDirectory)
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
            let client = PostgresClient(configuration: clientConfiguration, backgroundLogger: logger)
            let applied = try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { await client.run() }
                defer { group.cancelAll() }
                return try await MigrationRunner(client: client, migrations: migrations, logger: logger).apply()
            }
            print(applied.isEmpty ? "Nothing to apply: the database is up to date." : "Applied migrations \(applied).")
            embedded?.stop()
        } catch {
            embedded?.stop()
            logger.critical("migrate failed: \(error)")
            throw ExitCode.failure
        }
    }
}
