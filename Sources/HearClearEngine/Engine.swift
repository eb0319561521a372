import HearClearModel
import HearClearStore
import Logging
import LoudnessCore
import PostgresNIO

/// The engine's operations over one database, for the HTTP server and the CLI alike: check-in
/// intake, venues, devices, the loudness reads, admins' decisions on check-ins, and the
/// aggregation worker. Build one per process and hand its parts to whoever needs them.
public struct Engine: Sendable {
    /// The primary database, for the engine's own parts; nothing outside the engine reaches it.
    let client: PostgresClient
    public let configuration: EngineConfiguration
    public let logger: Logger
    public let intake: CheckinIntake
    public let venues: VenueDirectory
    public let devices: DeviceDirectory
    /// The key device ids are kept under (``DeviceKey``).
    let deviceKey: DeviceKey
    /// A phone's access to its data and their erasure.
    public let privacy: DevicePrivacy
    public let loudness: LoudnessReads
    public let decisions: CheckinDecisions
    /// Search, alternatives and similar venues.
    public let finder: VenueFinder
    /// Every venue in memory for search; answers once ``SearchIndexService`` has loaded it (and
    /// a listener tells it the changes), PostgreSQL until then.
    public let searchIndex: SearchIndex
    /// Where reads go: `replica` when given and answering, else `client`.
    public let reads: ReadDatabase
    /// Phone calibration: the crowd fit, reference calibrations, overrides.
    public let calibrator: Calibrator
    /// Reports of wrong data from people at venues.
    public let reports: VenueReports
    /// The admin's own queries (sessions, audit, its tables, bands).
    public let administration: Administration
    /// Devices' trust and venues' changes (docs/ARCHITECTURE.md, "Devices that earn trust").
    public let trust: TrustDirectory
    /// Whole months of check-ins: listed, and the old ones dropped (`hearclear months`).
    public let months: CheckinMonths
    /// Whether the database is away, shared by this engine's requests, worker and listeners.
    public let outage = DatabaseOutage()

    /// Where `client` connects, for the readiness probe's connection of its own (``readiness(migrations:)``).
    public let endpoint: DatabaseEndpoint?

    /// - Parameters:
    ///   - replica: a streaming replica of `client`'s database for reads (`DATABASE_READ_URL`);
    ///     run ``reads`` as a service to use it.
    ///   - endpoint: where `client` connects; without it a slow database cannot be told from a
    ///     gone one by `/ready` (a timeout is then called slow).
    public init(
        client: PostgresClient, replica: PostgresClient? = nil, endpoint: DatabaseEndpoint? = nil,
        configuration: EngineConfiguration, logger: Logger
    ) {
        guard let deviceKey = configuration.deviceKey else {
            preconditionFailure("an Engine needs the device key: EngineConfiguration.resolvingDeviceKey(logger:)")
        }
        self.deviceKey = deviceKey
        self.client = client
        self.endpoint = endpoint
        self.configuration = configuration
        self.logger = logger
        // Shared by ingest and venue updates, so a venue update is seen by ingest at once.
        let cache = IngestCache()
        let venueStore = VenueRepository(client: client, logger: logger, cache: cache)
        let checkins = CheckinRepository(
            client: client, logger: logger, cache: cache, groupWindow: configuration.ingestGroupWindow)
        intake = CheckinIntake(
            checkins: checkins, rule: IntakeRule(maxDistanceMetres: configuration.maxDistanceMetres),
            deviceKey: deviceKey)
        reads = ReadDatabase(
            primary: client, replica: replica, logger: logger, replicaTimeout: configuration.readReplicaTimeout)
        loudness = LoudnessReads(
            database: reads, checkins: checkins, cache: cache, referenceOffsetDB: configuration.referenceOffsetDB,
            logger: logger)
        venues = VenueDirectory(venues: venueStore, loudness: loudness)
        searchIndex = SearchIndex(
            enabled: configuration.searchIndex, referenceOffsetDB: configuration.referenceOffsetDB)
        finder = VenueFinder(database: reads, loudness: loudness, index: searchIndex, logger: logger)
        devices = DeviceDirectory(
            devices: DeviceRepository(client: client, logger: logger),
            administration: DeviceAdministration(client: client, logger: logger), key: deviceKey)
        privacy = DevicePrivacy(client: client, checkins: checkins, key: deviceKey, logger: logger)
        calibrator = Calibrator(client: client, referenceOffsetDB: configuration.referenceOffsetDB, logger: logger)
        reports = VenueReports(
            reports: ReportRepository(client: client, logger: logger), loudness: loudness, deviceKey: deviceKey)
        administration = Administration(client: client, logger: logger)
        months = CheckinMonths(client: client, logger: logger)
        trust = TrustDirectory(repository: TrustRepository(client: client, logger: logger), key: deviceKey)
        // An admin's decision is judged once, at once: nothing to remember.
        decisions = CheckinDecisions(
            overrides: CheckinOverrideRepository(client: client, logger: logger),
            aggregator: Aggregator(client: client, logger: logger, memoryCapacity: 0))
    }

    /// Keys the device ids stored before they were kept keyed (migration 0014); run after the
    /// migrations, before serving. Logs and returns how many were converted.
    @discardableResult
    public func keyStoredDevices() async throws -> Int {
        let key = deviceKey
        let converted = try await DeviceKeying(client: client, logger: logger).convert { key.keyed($0) }
        if converted > 0 { logger.notice("stored device ids keyed", metadata: ["devices": "\(converted)"]) }
        return converted
    }

    /// Check-ins judged again from the start, here (`hearclear recompute`).
    public func recomputation() -> Recomputation { Recomputation(client: client, logger: logger) }

    /// Whether the database is there, up to date, slow or gone (`/ready`).
    public func readiness(migrations: Migrations) -> DatabaseReadiness {
        DatabaseReadiness(
            migrations: migrations, endpoint: endpoint, outage: outage, limit: configuration.readinessLimit)
    }

    /// The aggregation worker of this process, held back by `gate` until the schema is ready.
    public func worker(gate: StartupGate) -> AggregationWorker {
        AggregationWorker(
            client: client, logger: logger, pollInterval: configuration.workerPollInterval, gate: gate,
            concurrency: configuration.aggregationWorkers, outage: outage,
            calibration: configuration.calibrationIntervalSeconds > 0
                ? (calibrator, .seconds(configuration.calibrationIntervalSeconds)) : nil,
            sampleRetentionDays: configuration.rawRetentionDays)
    }
}
