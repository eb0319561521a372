import HearClearEngine
import HearClearStore
import Logging
import PostgresNIO

extension AdminController {
    /// Sessions last 12 hours from sign-in.
    static let sessionLifetimeSeconds = 12 * 3600

    /// The whole admin, wired to the database: credentials resolved (a dev run's password
    /// generated and printed once) and templates loaded now, so that a mistake stops the start.
    /// The admin reads venues, cells and bands through the engine's reads, as the API does, and
    /// acts through the engine's operations; its own pages read `HearClearStore`'s admin queries.
    static func build(configuration: ServerConfiguration, engine: Engine) throws -> AdminController {
        let client = engine.client
        let logger = engine.logger
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
        let adminVenues = AdminVenueRepository(client: client, logger: logger)
        let adminReports = AdminReportRepository(client: client, logger: logger)
        let pages: [any AdminPageRoutes] = [
            AdminDashboard(
                overview: AdminOverviewRepository(client: client, logger: logger), reports: adminReports,
                loudness: engine.loudness, audit: audit, renderer: renderer, totalsCache: AdminTotalsCache()
            ),
            AdminVenues(
                venues: adminVenues, directory: engine.venues,
                details: AdminVenueDetails(
                    venues: adminVenues, reports: adminReports, directory: engine.venues, loudness: engine.loudness,
                    referenceOffsetDB: configuration.referenceOffsetDB
                ),
                renderer: renderer
            ),
            AdminCheckins(
                venues: engine.venues, adminVenues: adminVenues, loudness: engine.loudness,
                decisions: engine.decisions, audit: audit, renderer: renderer,
                referenceOffsetDB: configuration.referenceOffsetDB, maxDistanceMetres: configuration.maxDistanceMetres
            ),
            AdminReports(
                reports: adminReports, desk: engine.reports, loudness: engine.loudness, audit: audit,
                renderer: renderer
            ),
            AdminDevices(
                devices: AdminDeviceRepository(client: client, logger: logger), directory: engine.devices,
                audit: audit, renderer: renderer
            ),
            AdminModels(
                calibrator: engine.calibrator, audit: audit, renderer: renderer,
                referenceOffsetDB: configuration.referenceOffsetDB
            ),
            AdminBands(
                bands: BandRepository(client: client, logger: logger), audit: audit, renderer: renderer,
                referenceOffsetDB: configuration.referenceOffsetDB
            ),
        ]
        return AdminController(renderer: renderer, sessions: sessions, login: login, pages: pages)
    }
}
