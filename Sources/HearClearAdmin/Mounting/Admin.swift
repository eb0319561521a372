import HearClearEngine
import HearClearHTTP
import Hummingbird
import Logging

/// `/farmer`, the admin, as the server mounts it.
public struct Admin: Sendable {
    let controller: AdminController

    /// The whole admin, wired to the engine: credentials resolved (a dev run's password generated
    /// and printed once) and templates loaded now, so that a mistake stops the start. The admin
    /// reads venues, cells and bands through the engine's reads, as the API does, acts through the
    /// engine's operations, and reads its own tables through ``Engine/administration``.
    public init(settings: AdminSettings, engine: Engine) throws {
        controller = try AdminController.build(settings: settings, engine: engine)
    }

    /// Mounts `/farmer` and everything under it.
    public func addRoutes(to router: Router<AppRequestContext>) {
        controller.addRoutes(to: router)
    }
}

extension AdminController {
    /// Sessions last 12 hours from sign-in.
    static let sessionLifetimeSeconds = 12 * 3600

    static func build(settings: AdminSettings, engine: Engine) throws -> AdminController {
        let logger = engine.logger
        let admin = engine.administration
        let referenceOffsetDB = engine.configuration.referenceOffsetDB
        let credentials = try AdminCredentials.resolve(settings, logger: logger)
        let renderer = try AdminRenderer(directory: settings.templatesDirectory)
        let sessions = AdminSessionStore(
            repository: admin.sessions, lifetimeSeconds: sessionLifetimeSeconds, secureCookie: settings.secureCookie)
        let login = AdminLogin(
            credentials: credentials, throttle: admin.loginThrottle, sessions: sessions, audit: admin.audit)
        let pages: [any AdminPageRoutes] = [
            AdminDashboard(
                overview: admin.overview, reports: admin.reports, loudness: engine.loudness, audit: admin.audit,
                renderer: renderer, totalsCache: AdminTotalsCache()
            ),
            AdminVenues(
                venues: admin.venues, directory: engine.venues,
                details: AdminVenueDetails(
                    venues: admin.venues, reports: admin.reports, directory: engine.venues, loudness: engine.loudness,
                    trust: admin.trust, referenceOffsetDB: referenceOffsetDB
                ),
                renderer: renderer
            ),
            AdminCheckins(
                venues: engine.venues, adminVenues: admin.venues, loudness: engine.loudness,
                decisions: engine.decisions, trust: admin.trust, audit: admin.audit, renderer: renderer,
                referenceOffsetDB: referenceOffsetDB, maxDistanceMetres: engine.configuration.maxDistanceMetres
            ),
            AdminReports(
                reports: admin.reports, desk: engine.reports, loudness: engine.loudness, audit: admin.audit,
                renderer: renderer
            ),
            AdminDevices(
                devices: admin.devices, directory: engine.devices, trust: admin.trust, audit: admin.audit,
                renderer: renderer),
            AdminPhoneModels(
                calibrator: engine.calibrator, trust: admin.trust, audit: admin.audit, renderer: renderer,
                referenceOffsetDB: referenceOffsetDB
            ),
            AdminTrust(trust: admin.trust, directory: engine.venues, audit: admin.audit, renderer: renderer),
            AdminBands(
                bands: admin.bands, audit: admin.audit, renderer: renderer, referenceOffsetDB: referenceOffsetDB),
        ]
        return AdminController(renderer: renderer, sessions: sessions, login: login, pages: pages)
    }
}
