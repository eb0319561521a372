import Foundation
import HearClearAdmin
import HearClearEngine
import HearClearHTTP
import HearClearPages
import Hummingbird
import Logging
import Prometheus
import ServiceLifecycle

/// Builds the whole server: database (embedded or external), migrations at start, routes,
/// middleware and services. `serve` and the tests call this same function.
public func buildApplication(
    configuration: ServerConfiguration, database source: DatabaseSource, logger: Logger
) async throws -> some ApplicationProtocol {
    try configuration.checkResources()
    var configuration = configuration
    configuration.engine = try configuration.engine.resolvingDeviceKey(logger: logger)
        .resolvingSoundModel(logger: logger)
    let database = try EngineDatabase.open(source, configuration: configuration.engine, logger: logger)
    let engine = database.engine(configuration: configuration.engine, logger: logger)
    let cache = ReadCache(capacityBytes: configuration.readCacheBytes)
    let router = try buildRouter(
        configuration: configuration, engine: engine, migrations: database.migrations,
        reads: CachedReads(configuration, cache, engine: engine))
    let schemaReady = StartupGate()
    // Time limits and the connection cap (Connections/ConnectionLimits.swift); past the cap plus the
    // turned-away headroom, Hummingbird stops accepting and connections wait in the backlog.
    let connectionCap = configuration.connections.effectiveMaxConnections(
        databaseConnections: configuration.databaseConnections, logger: logger)
    var app = Application(
        router: router,
        server: .limitedHTTP1(limits: configuration.connections, gate: ConnectionGate(maxConnections: connectionCap)),
        configuration: .init(
            address: .hostname(configuration.hostname, port: configuration.port), serverName: "HearClear",
            availableConnectionsDelegate: ConnectionLimits.acceptance(cap: connectionCap, logger: logger)),
        services: database.services,
        logger: logger
    )
    let migrations = database.migrations
    app.beforeServerStarts {
        let applied = try await migrations.apply()
        try await engine.keyStoredDevices()
        logger.info("database ready", metadata: ["migrationsApplied": "\(applied)"])
        await schemaReady.open()
    }
    // After the client, so that it stops before the client does.
    app.addServices(
        engine.worker(gate: schemaReady),
        ReadCacheListener(
            cache: cache, index: engine.searchIndex, changes: engine.readChanges, gate: schemaReady,
            outage: engine.outage, logger: logger))
    // Off, the index has nothing to do, and a service that ends would end the server.
    if configuration.engine.searchIndex {
        app.addServices(SearchIndexService(index: engine.searchIndex, engine: engine))
    }
    if database.replica != nil { app.addServices(engine.reads) }
    return app
}

/// The routes of v1, v2 and operations, behind the error, compression and size-limit middleware,
/// with no read cache: the read endpoints read the database every time (a router alone, as tests
/// use it, has no listener to keep a cache true).
public func buildRouter(
    configuration: ServerConfiguration, engine: Engine, migrations: Migrations
) throws -> Router<AppRequestContext> {
    try buildRouter(
        configuration: configuration, engine: engine, migrations: migrations,
        reads: CachedReads(configuration, ReadCache(capacityBytes: 0), engine: engine))
}

/// The routes, with `reads` answering the read endpoints from memory.
func buildRouter(
    configuration: ServerConfiguration, engine: Engine, migrations: Migrations, reads: CachedReads
) throws -> Router<AppRequestContext> {
    let router = Router(context: AppRequestContext.self, options: .autoGenerateHeadEndpoints)
    let routeIndex = RouteIndex()
    router.add(middleware: ResponseCompressionMiddleware())
    router.add(middleware: AccessLogMiddleware())
    router.add(middleware: MetricsMiddleware())
    router.add(middleware: ErrorMiddleware(routes: routeIndex, outage: engine.outage))
    router.add(middleware: DatabaseGateMiddleware(outage: engine.outage))
    let limiter = RateLimiter(configuration.rateLimits)
    router.add(middleware: RateLimitMiddleware(limiter: limiter))
    router.add(middleware: BodyLimitMiddleware(routes: routeIndex))

    HealthController(readiness: engine.readiness(migrations: migrations)).addRoutes(to: router)
    MetricsController(registry: PrometheusMetricsFactory.defaultRegistry).addRoutes(to: router)
    let v2 = router.group("api/v2")
    VenuesController(venues: engine.venues, loudness: engine.loudness, reads: reads).addRoutes(to: v2)
    CheckinsController(intake: engine.intake, loudness: engine.loudness, reads: reads, limiter: limiter)
        .addRoutes(to: v2)
    ReportsController(reports: engine.reports, reads: reads, limiter: limiter).addRoutes(to: v2)
    DevicesController(privacy: engine.privacy).addRoutes(to: v2)
    LoudnessController(loudness: engine.loudness, reads: reads).addRoutes(to: v2)
    SearchController(finder: engine.finder, loudness: engine.loudness, reads: reads).addRoutes(to: v2)
    ExportController(engine: engine, reads: reads).addRoutes(to: v2)
    MeterController(
        model: configuration.engine.soundModel, maxDuration: configuration.meterMaxDuration,
        slots: MeterSlots(limit: configuration.meterMaxConcurrent)
    ).addRoutes(to: v2)
    ToneCalibrationController().addRoutes(to: v2)
    try OpenAPIController(path: configuration.openAPIPath).addRoutes(to: v2)
    LegacyController(
        venues: engine.venues, devices: engine.devices, intake: engine.intake, loudness: engine.loudness, reads: reads,
        limiter: limiter
    ).addRoutes(to: router.group("api/v1"))
    try Admin(settings: configuration.admin, engine: engine).addRoutes(to: router)
    try Pages(
        directory: configuration.pagesDirectory, engine: engine,
        reports: ServerPageReportDesk(reports: engine.reports, reads: reads, limiter: limiter),
        cache: ServerPageCache(reads: reads), maxAgeSeconds: configuration.pagesMaxAgeSeconds,
        staleWhileRevalidateSeconds: configuration.httpStaleWhileRevalidateSeconds, map: configuration.map
    ).addRoutes(to: router)

    routeIndex.load(router.routes.map { ("\($0.path)", $0.method) })
    return router
}
