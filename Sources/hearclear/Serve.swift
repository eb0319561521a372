import ArgumentParser
import Configuration
import HearClearEngine
import HearClearServer
import HearClearStore
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
            """
    )

    @Option(help: "Address to listen on. Env: HEARCLEAR_HOSTNAME. Default: 127.0.0.1")
    var hostname: String?

    @Option(help: "Port to listen on. Env: HEARCLEAR_PORT. Default: 8080")
    var port: Int?

    @Option(
        help:
            "Check-ins farther than this (metres) from their venue are excluded. Env: HEARCLEAR_MAX_DISTANCE_METRES. Default: 250"
    )
    var maxDistanceMetres: Double?

    @Option(
        help:
            "Calibrated dB = dBFS + model offset + this (an assumption). Env: HEARCLEAR_REFERENCE_OFFSET_DB. Default: 110"
    )
    var referenceOffsetDB: Double?

    @Option(help: "PostgreSQL connections in the pool. Env: HEARCLEAR_DATABASE_CONNECTIONS. Default: 20")
    var databaseConnections: Int?

    @Option(
        help:
            "Batches of venues (up to 32 each) this instance aggregates at once. Env: HEARCLEAR_AGGREGATION_WORKERS. Default: 2"
    )
    var aggregationWorkers: Int?

    @Option(
        help:
            "Seconds between crowd calibration fits of the phone models' offsets (0: never; `hearclear calibrate models --fit` fits on demand). Env: HEARCLEAR_CALIBRATION_INTERVAL. Default: 900"
    )
    var calibrationInterval: Int?
    @Option(help: "User name of the admin at /farmer. Env: HEARCLEAR_ADMIN_USER. Default: admin")
    var adminUser: String?

    @Option(
        help: """
            bcrypt hash of the admin password. Env: HEARCLEAR_ADMIN_PASSWORD_HASH (prefer it: flags show in ps). \
            Without it or --admin-password, a password is generated, printed once, and only its hash kept in \
            <data-dir>/admin-password.bcrypt.
            """)
    var adminPasswordHash: String?

    @Option(help: "Admin password, hashed at start. Env: HEARCLEAR_ADMIN_PASSWORD (prefer it: flags show in ps)")
    var adminPassword: String?

    @Flag(
        help: "Mark the admin session cookie Secure (serve /farmer over TLS). Env: HEARCLEAR_ADMIN_SECURE_COOKIE=true")
    var adminSecureCookie = false

    @Option(
        help:
            "A PostgreSQL streaming replica for reads that miss the read cache (postgres://…); writes, the queue and LISTEN stay on the primary, and reads go to the primary while it does not answer. Env: DATABASE_READ_URL"
    )
    var databaseReadURL: String?

    @Option(
        help:
            "Bytes of encoded answers (grids, venues, bands) this instance keeps in memory; 0 turns the cache off. Env: HEARCLEAR_READ_CACHE_BYTES. Default: 67108864 (64 MiB)"
    )
    var readCacheBytes: Int?

    @Option(
        help:
            "Cache-Control max-age (seconds) of grids, venues and bands, for phones and CDNs. Env: HEARCLEAR_HTTP_MAX_AGE. Default: 5"
    )
    var httpMaxAge: Int?

    @Option(
        help:
            "Cache-Control stale-while-revalidate (seconds) of grids, venues and bands. Env: HEARCLEAR_HTTP_STALE_WHILE_REVALIDATE. Default: 30"
    )
    var httpStaleWhileRevalidate: Int?

    @Option(
        help:
            "Seconds a client has to send a request's head (line and headers) from its first byte; then the connection is closed. Env: HEARCLEAR_HTTP_HEAD_TIMEOUT. Default: 10"
    )
    var httpHeadTimeout: Double?

    @Option(
        help:
            "Seconds a client has to send a request's body after its head, plus 1 s per --http-body-min-rate bytes received, and at most this long between two pieces of body or without reading the answer. Env: HEARCLEAR_HTTP_BODY_TIMEOUT. Default: 30"
    )
    var httpBodyTimeout: Double?

    @Option(
        help:
            "Bytes a second of body that earn a second more than --http-body-timeout (0: the whole body within it). Env: HEARCLEAR_HTTP_BODY_MIN_RATE. Default: 1024"
    )
    var httpBodyMinRate: Int?

    @Option(
        help:
            "Seconds a connection may stay open with no request begun, after it opens or after an answer. Env: HEARCLEAR_HTTP_IDLE_TIMEOUT. Default: 60"
    )
    var httpIdleTimeout: Double?

    @Option(
        help:
            "Connections served at once (lowered to the open-file limit less a reserve); past it a connection is answered 503 with Retry-After and closed. Env: HEARCLEAR_HTTP_MAX_CONNECTIONS. Default: 4096"
    )
    var httpMaxConnections: Int?

    @Option(
        help:
            "Check-ins one device may submit, as N/s, N/min or N/h (0: no limit), per instance. Env: HEARCLEAR_RATE_CHECKINS_DEVICE. Default: 20/h"
    )
    var rateCheckinsDevice: String?

    @Option(
        help:
            "Check-ins from one client address, all devices together (N/s, N/min or N/h; 0: no limit). Env: HEARCLEAR_RATE_CHECKINS_ADDRESS. Default: 600/h"
    )
    var rateCheckinsAddress: String?

    @Option(
        help:
            "Recordings measured (meter, tone calibration) from one address. Env: HEARCLEAR_RATE_METERING_ADDRESS. Default: 60/h"
    )
    var rateMeteringAddress: String?

    @Option(
        help:
            "Searches (venues, alternatives, similar) from one address. Env: HEARCLEAR_RATE_SEARCHES_ADDRESS. Default: 600/min"
    )
    var rateSearchesAddress: String?

    @Option(
        help:
            "Reports of wrong data one device may send (N/s, N/min or N/h; 0: no limit). Env: HEARCLEAR_RATE_REPORTS_DEVICE. Default: 10/h"
    )
    var rateReportsDevice: String?

    @Option(
        help:
            "Reports of wrong data from one client address, all devices together. Env: HEARCLEAR_RATE_REPORTS_ADDRESS. Default: 120/h"
    )
    var rateReportsAddress: String?

    @Option(
        help:
            "Proxies whose X-Forwarded-For is believed, as addresses or networks separated by commas (e.g. 10.0.0.0/8). Env: HEARCLEAR_TRUSTED_PROXIES. Default: none (the header is ignored)"
    )
    var trustedProxies: String?

    @Option(
        help:
            "Client addresses or networks never rate-limited, separated by commas. Env: HEARCLEAR_RATE_EXEMPT. Default: 127.0.0.0/8,::1 (the operator's own tools)"
    )
    var rateExempt: String?

    @OptionGroup var license: DataLicenseOptions

    @OptionGroup var options: ServerOptions

    func run() async throws {
        var extra: [AbsoluteConfigKey: ConfigValue] = license.values
        if let hostname { extra[["hearclear", "hostname"]] = .init(.string(hostname), isSecret: false) }
        if let port { extra[["hearclear", "port"]] = .init(.int(port), isSecret: false) }
        if let maxDistanceMetres {
            extra[["hearclear", "max", "distance", "metres"]] = .init(.double(maxDistanceMetres), isSecret: false)
        }
        if let referenceOffsetDB {
            extra[["hearclear", "reference", "offset", "db"]] = .init(.double(referenceOffsetDB), isSecret: false)
        }
        if let databaseConnections {
            extra[["hearclear", "database", "connections"]] = .init(.int(databaseConnections), isSecret: false)
        }
        if let aggregationWorkers {
            extra[["hearclear", "aggregation", "workers"]] = .init(.int(aggregationWorkers), isSecret: false)
        }
        if let calibrationInterval {
            extra[["hearclear", "calibration", "interval"]] = .init(.int(calibrationInterval), isSecret: false)
        }
        if let adminUser { extra[["hearclear", "admin", "user"]] = .init(.string(adminUser), isSecret: false) }
        if let adminPasswordHash {
            extra[["hearclear", "admin", "password", "hash"]] = .init(.string(adminPasswordHash), isSecret: true)
        }
        if let adminPassword {
            extra[["hearclear", "admin", "password"]] = .init(.string(adminPassword), isSecret: true)
        }
        if let databaseReadURL {
            extra[["database", "read", "url"]] = .init(.string(databaseReadURL), isSecret: true)
        }
        if let readCacheBytes {
            extra[["hearclear", "read", "cache", "bytes"]] = .init(.int(readCacheBytes), isSecret: false)
        }
        if let httpMaxAge { extra[["hearclear", "http", "max", "age"]] = .init(.int(httpMaxAge), isSecret: false) }
        for (value, key) in [
            (rateCheckinsDevice, "hearclear.rate.checkins.device"),
            (rateCheckinsAddress, "hearclear.rate.checkins.address"),
            (rateMeteringAddress, "hearclear.rate.metering.address"),
            (rateSearchesAddress, "hearclear.rate.searches.address"), (trustedProxies, "hearclear.trusted.proxies"),
            (rateReportsDevice, "hearclear.rate.reports.device"),
            (rateReportsAddress, "hearclear.rate.reports.address"),
            (rateExempt, "hearclear.rate.exempt"),
        ] {
            if let value {
                extra[AbsoluteConfigKey(key.split(separator: ".").map(String.init))] = .init(
                    .string(value), isSecret: false)
            }
        }
        if let httpStaleWhileRevalidate {
            extra[["hearclear", "http", "stale", "while", "revalidate"]] = .init(
                .int(httpStaleWhileRevalidate), isSecret: false)
        }
        if let httpHeadTimeout {
            extra[["hearclear", "http", "head", "timeout"]] = .init(.double(httpHeadTimeout), isSecret: false)
        }
        if let httpBodyTimeout {
            extra[["hearclear", "http", "body", "timeout"]] = .init(.double(httpBodyTimeout), isSecret: false)
        }
        if let httpBodyMinRate {
            extra[["hearclear", "http", "body", "min", "rate"]] = .init(.int(httpBodyMinRate), isSecret: false)
        }
        if let httpIdleTimeout {
            extra[["hearclear", "http", "idle", "timeout"]] = .init(.double(httpIdleTimeout), isSecret: false)
        }
        if let httpMaxConnections {
            extra[["hearclear", "http", "max", "connections"]] = .init(.int(httpMaxConnections), isSecret: false)
        }
        if adminSecureCookie {
            extra[["hearclear", "admin", "secure", "cookie"]] = .init(.bool(true), isSecret: false)
        }
        let reader = try await options.reader(extra: extra)
        let configuration = try ServerConfiguration(reader: reader)
        let logger = Logging.bootstrap(configuration.engine)
        MetricsSystem.bootstrap(PrometheusMetricsFactory())
        do {
            let database: DatabaseSource =
                if let url = configuration.databaseURL { .external(try DatabaseURL.configuration(url)) } else {
                    .embedded
                }
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
