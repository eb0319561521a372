import HearClearStore
import Logging
import PostgresNIO

extension AdminController {
    /// Sessions last 12 hours from sign-in.
    static let sessionLifetimeSeconds = 12 * 3600

    /// The whole admin, wired to the database: credentials resolved (a dev run's password
    /// generated and printed once) and templates loaded now, so that a mistake stops the start.
    static func build(configuration: ServerConfiguration, client: PostgresClient, logger: Logger) throws
        -> AdminController
    {
        let credentials = try AdminCredentials.resolve(configuration, logger: logger)
        let renderer = try AdminRenderer(directory: configuration.adminDirectory)
        let sessions = AdminSessionStore(
            repository: AdminSessionRepository(client: client, logger: logger),
            lifetimeSeconds: sessionLifetimeSeconds, secureCookie: configuration.adminSecureCookie
        )
        let audit = AdminAuditLog(client: client, logger: logger)
        let login = AdminLogin(
            credentials: credentials, throttle: AdminLoginThrottle(client: client, logger: logger), sessions: sessions,
            audit: audit
        )
        let venueStore = VenueRepository(client: client, logger: logger)
        let adminVenues = AdminVenueRepository(client: client, logger: logger)
        let loudness = LoudnessReader(
            venues: venueStore, loudness: LoudnessRepository(client: client, logger: logger),
            bands: BandRepository(client: client, logger: logger), referenceOffsetDB: configuration.referenceOffsetDB,
            logger: logger
        )
        let pages: [any AdminPageRoutes] = [
            AdminDashboard(
                overview: AdminOverviewRepository(client: client, logger: logger), audit: audit, renderer: renderer,
                totalsCache: AdminTotalsCache()
            ),
            AdminVenues(
                venues: adminVenues, venueStore: venueStore,
                details: AdminVenueDetails(
                    venues: adminVenues, venueStore: venueStore, loudness: loudness,
                    referenceOffsetDB: configuration.referenceOffsetDB
                ),
                renderer: renderer
            ),
            AdminCheckins(
                checkins: CheckinRepository(client: client, logger: logger), venueStore: venueStore,
                venues: adminVenues, loudness: LoudnessRepository(client: client, logger: logger),
                overrides: CheckinOverrideRepository(client: client, logger: logger),
                aggregator: Aggregator(client: client, logger: logger, memoryCapacity: 0), audit: audit,
                renderer: renderer,
                referenceOffsetDB: configuration.referenceOffsetDB, maxDistanceMetres: configuration.maxDistanceMetres
            ),
            AdminDevices(
                devices: AdminDeviceRepository(client: client, logger: logger),
                administration: DeviceAdministration(client: client, logger: logger), audit: audit, renderer: renderer
            ),
            AdminBands(
                bands: BandRepository(client: client, logger: logger), audit: audit, renderer: renderer,
                referenceOffsetDB: configuration.referenceOffsetDB
            ),
        ]
        return AdminController(renderer: renderer, sessions: sessions, login: login, pages: pages)
    }
}
