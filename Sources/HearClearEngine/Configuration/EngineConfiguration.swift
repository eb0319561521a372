import AudioClassification
import Configuration
import Foundation
import HearClearModel
import Logging

/// What every command that reaches the database can be told (`serve`, `migrate`, `devices`,
/// `recompute`), read from flags, then the environment, then defaults (`reader` is built in that
/// order by the CLI). Each setting is declared once, in ``EngineSettings``: its key, default and
/// help; `hearclear.data.dir` is `--data-dir` and `HEARCLEAR_DATA_DIR`, `database.url` is
/// `--database-url` and `DATABASE_URL`.
public struct EngineConfiguration: Sendable {
    /// How log lines are written (`--log-format`): plain text, or one JSON object per line.
    public enum LogFormat: String, Sendable, CaseIterable {
        case text, json
    }

    /// Where the embedded PostgreSQL lives (`<dataDirectory>/postgres`).
    public var dataDirectory = EngineSettings.dataDirectory.defaultValue!
    /// The folder holding `Migrations/` (and, for `serve`, `Admin/`, `Pages/` and `API/`).
    public var resourcesDirectory = EngineSettings.resources.defaultValue!
    /// An external database; when set, nothing is started.
    public var databaseURL: String?
    /// A streaming replica of the database for reads that miss the read cache (`serve` only).
    public var databaseReadURL: String?
    public var logFormat = LogFormat(rawValue: EngineSettings.logFormat.defaultValue!)!
    public var logLevel = Logger.Level(rawValue: EngineSettings.logLevel.defaultValue!)!
    /// A check-in whose phone was farther than this from the venue is excluded (``IntakeRule``).
    public var maxDistanceMetres = EngineSettings.maxDistanceMetres.defaultDouble
    /// Connections kept to PostgreSQL.
    public var databaseConnections = EngineSettings.databaseConnections.defaultInt
    /// Calibrated dB = dBFS + device-model offset + this. An assumption until calibrated: it
    /// puts 0 dBFS at 110 dB SPL, which reads the 2013 client's typical bar (amplitude 0.031,
    /// −30.2 dBFS) as 79.8 dB, "loud".
    public var referenceOffsetDB = EngineSettings.referenceOffsetDB.defaultDouble
    /// How long a check-in may wait for others to be written with it while a group is being
    /// written (docs/ARCHITECTURE.md, "Check-ins written in groups"); zero: each alone.
    public var ingestGroupWindow: Duration = .microseconds(
        Int64(EngineSettings.ingestGroupWindow.defaultDouble * 1000))
    /// Batches of venues this instance aggregates at once.
    public var aggregationWorkers = EngineSettings.aggregationWorkers.defaultInt
    /// Seconds between crowd calibration fits (``Calibrator``); 0: never (only on demand).
    public var calibrationIntervalSeconds = EngineSettings.calibrationInterval.defaultInt
    /// Days a check-in keeps its per-second samples once its cleaning is stored
    /// (``SampleRetention``); nil: for ever.
    public var rawRetentionDays: Int?
    /// Whether search is answered from the in-memory venue index (``SearchIndex``).
    public var searchIndex = EngineSettings.searchIndex.defaultValue == "on"
    /// The secret device ids are kept under (`--device-key`); nil: the one in the data directory.
    public var deviceKeySecret: String?
    /// The key itself, once resolved (``resolvingDeviceKey(logger:)``); an ``Engine`` needs it.
    public var deviceKey: DeviceKey?
    /// `--sound-model`: a folder, `off`, or nil for `models/yamnet` under the resources if there.
    public var soundModelSetting: String?
    /// The AudioSet model, once loaded (``resolvingSoundModel(logger:)``); nil: the spectra rules
    /// label uploaded recordings.
    public var soundModel: AudioSetModel?
    /// The licence the open-data exports are published under (``DataLicense/configured(name:url:)``).
    public var dataLicense = DataLicense.odbl

    // Timings that are not settings (no flag, no variable): what tests change to decide by
    // events rather than by the clock.

    /// How often the aggregation worker looks at the queue without being told (it is woken by
    /// NOTIFY; the poll catches what a lost LISTEN missed).
    public var workerPollInterval: Duration = .seconds(2)
    /// How long a read may take on the replica before it is read from the primary instead, and
    /// the replica is left alone until it answers again (``ReadDatabase``).
    public var readReplicaTimeout: Duration = .seconds(2)
    /// How long `/ready`'s query may take through the pool, and then on a connection of its own,
    /// before the database is called slow (``DatabaseReadiness``).
    public var readinessLimit: Duration = .seconds(5)

    /// Every setting at its default.
    public init() {}

    /// This configuration with its ``deviceKey``: the one given, else from `--device-key`, else
    /// the one kept in (or generated into) the data directory (``DeviceKey/resolve``).
    public func resolvingDeviceKey(logger: Logger) throws -> EngineConfiguration {
        guard deviceKey == nil else { return self }
        var resolved = self
        resolved.deviceKey = try DeviceKey.resolve(
            secret: deviceKeySecret, dataDirectory: dataDirectory, logger: logger)
        return resolved
    }

    /// This configuration with its ``soundModel`` loaded as ``soundModelSetting`` says
    /// (``SoundModelLoading``).
    public func resolvingSoundModel(logger: Logger) throws -> EngineConfiguration {
        guard soundModel == nil else { return self }
        var resolved = self
        resolved.soundModel = try SoundModelLoading.load(
            soundModelSetting, resources: resourcesDirectory, logger: logger)
        return resolved
    }

    /// The settings as `reader` gives them, checked: a value out of range or unknown throws.
    public init(reader: ConfigReader) throws {
        self.init()
        dataDirectory = reader.string(EngineSettings.dataDirectory)!
        resourcesDirectory = reader.string(EngineSettings.resources)!
        databaseURL = reader.string(EngineSettings.databaseURL)
        databaseReadURL = reader.string(EngineSettings.databaseReadURL)
        deviceKeySecret = reader.string(EngineSettings.deviceKey)
        soundModelSetting = reader.string(EngineSettings.soundModel)
        maxDistanceMetres = reader.double(EngineSettings.maxDistanceMetres)
        databaseConnections = reader.int(EngineSettings.databaseConnections)
        referenceOffsetDB = reader.double(EngineSettings.referenceOffsetDB)
        aggregationWorkers = reader.int(EngineSettings.aggregationWorkers)
        let window = reader.double(EngineSettings.ingestGroupWindow)
        guard (0...100).contains(window) else {
            throw ConfigurationError.invalid("ingest group window must be 0 (off) to 100 milliseconds, not \(window)")
        }
        ingestGroupWindow = .microseconds(Int64((window * 1000).rounded()))
        calibrationIntervalSeconds = reader.int(EngineSettings.calibrationInterval)
        switch reader.string(EngineSettings.rawRetentionDays) {
        case nil, "off": rawRetentionDays = nil
        case let text?:
            guard let days = Int(text), (1...36_500).contains(days) else {
                throw ConfigurationError.invalid(
                    "raw retention days must be 'off' or a whole number of days from 1 to 36500, not '\(text)'")
            }
            rawRetentionDays = days
        }
        switch reader.string(EngineSettings.searchIndex) {
        case "on": searchIndex = true
        case "off": searchIndex = false
        case let other:
            throw ConfigurationError.invalid("search index must be 'on' or 'off', not '\(other ?? "")'")
        }
        dataLicense = try DataLicense.configured(
            name: reader.string(forKey: ConfigKey(EngineSettings.dataLicense.key)),
            url: reader.string(forKey: ConfigKey(EngineSettings.dataLicenseURL.key)))
        let format = reader.string(EngineSettings.logFormat)!
        guard let logFormat = LogFormat(rawValue: format) else {
            throw ConfigurationError.invalid("log format must be 'text' or 'json', not '\(format)'")
        }
        self.logFormat = logFormat
        let level = reader.string(EngineSettings.logLevel)!
        guard let logLevel = Logger.Level(rawValue: level) else {
            throw ConfigurationError.invalid(
                "log level must be one of trace, debug, info, notice, warning, error, critical")
        }
        self.logLevel = logLevel
        guard maxDistanceMetres > 0, databaseConnections > 0, (1...32).contains(aggregationWorkers) else {
            throw ConfigurationError.invalid(
                "max distance and database connections must be positive, aggregation workers 1…32")
        }
        guard (0...604_800).contains(calibrationIntervalSeconds) else {
            throw ConfigurationError.invalid("calibration interval must be 0 (never) to 604800 seconds (a week)")
        }
    }

    public var migrationsDirectory: String { resourcesDirectory + "/Migrations" }

    /// Refuses to start without the resource folders `names` (under ``resourcesDirectory``),
    /// naming the one missing.
    public func checkResources(_ names: [String] = ["Migrations"]) throws {
        for name in names {
            let directory = resourcesDirectory + "/" + name
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory), isDirectory.boolValue
            else {
                throw ConfigurationError.invalid(
                    "resources not found: \(directory) is missing; run from the repository or pass --resources DIR (HEARCLEAR_RESOURCES)"
                )
            }
        }
    }
}
