import HearClearStore
import Logging
import PostgresNIO

extension AdminController {
    /// Sessions last 12 hours from sign-in.
    static let sessionLifetimeSeconds = 12 * 3600

    /// The whole admin, wired to the database: credentials resolved (a dev run's password
    /// generated and printed once) and templates loaded now, so that a mistake stops the start.
    /// `loudness` is the API's reader: the admin reads venues, cells and bands through it.
    static func build(
        configuration: ServerConfiguration, client: PostgresClient, loudness: LoudnessReader, logger: Logger
    ) throws -> AdminController {
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
        let venueStore = loudness.venues
        let adminVenues = AdminVenueRepository(client: client, logger: logger)
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
                venues: adminVenues, loudness: loudness.loudness,
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
                bands: loudness.bands, audit: audit, renderer: renderer,
                referenceOffsetDB: configuration.referenceOffsetDB
            ),
        ]
        return AdminController(renderer: renderer, sessions: sessions, login: login, pages: pages)
    }
}
