import ArgumentParser
import Configuration
import HearClearCLI
import HearClearEngine
import HearClearServer
import Logging
import Metrics
import Prometheus
import ServiceLifecycle

struct Serve: AsyncParsableCommand {
    /// How long a graceful shutdown may take before it is escalated to cancellation.
    static let gracefulShutdownLimit = Duration.seconds(10)

    static let configuration = CommandConfiguration(
        abstract:
            "Run the HTTP server (v1, v2, /health, /ready), with an embedded PostgreSQL unless DATABASE_URL is set.",
        discussion: """
            Without DATABASE_URL, the first run initialises a PostgreSQL cluster in <data-dir>/postgres; \
            every run starts it on a private Unix socket and stops it on SIGINT or SIGTERM. As root the \
            cluster runs as the 'postgres' user (or a 'hearclear' user it creates). Migrations are applied \
            at start. A second server on the same data directory is refused.

            Settings (a flag wins over its environment variable, which wins over .env in the \
            working directory, then the default):

            """ + SettingArguments.help(ServerSettings.all)
    )

    /// Every setting of `serve`, made from ``ServerSettings/all``: its flags are listed in the
    /// discussion above, not by the argument parser.
    @Argument(parsing: .allUnrecognized, help: ArgumentHelp(visibility: .private))
    var settings: [String] = []

    func validate() throws {
        _ = try SettingArguments.values(settings, settings: ServerSettings.all)
    }

    func run() async throws {
        let flags = try SettingArguments.values(settings, settings: ServerSettings.all)
        let reader = try await ServerOptions.reader(flags: flags)
        let configuration = try ServerConfiguration(reader: reader)
        let logger = CommandLogging.bootstrap(configuration.engine)
        MetricsSystem.bootstrap(PrometheusMetricsFactory())
        do {
            let database = try DatabaseSource.configured(configuration.engine)
            let app = try await buildApplication(configuration: configuration, database: database, logger: logger)
            // SIGTERM or SIGINT: a graceful shutdown (the worker finishes its batch, answers in
            // flight are sent), escalated to cancellation after 10 s, so that work stuck on a
            // connection that died with the database cannot keep the process alive.
            var group = ServiceGroupConfiguration(
                services: [app], gracefulShutdownSignals: [.sigterm, .sigint], logger: logger)
            group.maximumGracefulShutdownDuration = Self.gracefulShutdownLimit
            try await ServiceGroup(configuration: group).run()
        } catch {
            logger.critical("hearclear cannot serve: \(error)")
            throw ExitCode.failure
        }
    }
}
