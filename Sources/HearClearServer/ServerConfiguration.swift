import Configuration
import Foundation
import Logging

/// Everything `serve` can be told, read from flags, then the environment, then defaults
/// (`reader` is built in that order by the CLI). Keys map to variables by swift-configuration's
/// rule: `hearclear.port` is `HEARCLEAR_PORT`, `database.url` is `DATABASE_URL`.
public struct ServerConfiguration: Sendable {
    public enum LogFormat: String, Sendable, CaseIterable {
        case text, json
    }

    public var hostname = "127.0.0.1"
    public var port = 8080
    /// Where the embedded PostgreSQL lives (`<dataDirectory>/postgres`).
    public var dataDirectory = ".hearclear"
    /// The folder holding `Migrations/`, `Admin/` and `API/`.
    public var resourcesDirectory = "."
    /// An external database; when set, nothing is started.
    public var databaseURL: String?
    public var logFormat = LogFormat.text
    public var logLevel = Logger.Level.info
    /// A check-in whose phone was farther than this from the venue is excluded.
    public var maxDistanceMetres = 250.0
    /// Connections the server keeps to PostgreSQL.
    public var databaseConnections = 20
    /// Calibrated dB = dBFS + device-model offset + this. An assumption until calibrated: it
    /// puts 0 dBFS at 110 dB SPL, which reads the 2013 client's typical bar (amplitude 0.031,
    /// −30.2 dBFS) as 79.8 dB, "loud".
    public var referenceOffsetDB = 110.0
    /// Venues this instance aggregates at once.
    public var aggregationWorkers = 2
    /// The admin's user name at `/farmer`.
    public var adminUser = "admin"
    /// bcrypt hash of the admin password (`$2b$12$…`); wins over `adminPassword`.
    public var adminPasswordHash: String?
    /// The admin password in clear, hashed at start. With neither set, a password is generated
    /// once and only its hash kept in `<dataDirectory>/admin-password.bcrypt`.
    public var adminPassword: String?
    /// Mark the admin session cookie `Secure` (set it when served over TLS).
    public var adminSecureCookie = false

    public init() {}

    public init(reader: ConfigReader) throws {
        self.init()
        hostname = reader.string(forKey: "hearclear.hostname", default: hostname)
        port = reader.int(forKey: "hearclear.port", default: port)
        dataDirectory = reader.string(forKey: "hearclear.data.dir", default: dataDirectory)
        resourcesDirectory = reader.string(forKey: "hearclear.resources", default: resourcesDirectory)
        databaseURL = reader.string(forKey: "database.url", isSecret: true)
        maxDistanceMetres = reader.double(forKey: "hearclear.max.distance.metres", default: maxDistanceMetres)
        databaseConnections = reader.int(forKey: "hearclear.database.connections", default: databaseConnections)
        referenceOffsetDB = reader.double(forKey: "hearclear.reference.offset.db", default: referenceOffsetDB)
        aggregationWorkers = reader.int(forKey: "hearclear.aggregation.workers", default: aggregationWorkers)
        adminUser = reader.string(forKey: "hearclear.admin.user", default: adminUser)
        adminPasswordHash = reader.string(forKey: "hearclear.admin.password.hash", isSecret: true)
        adminPassword = reader.string(forKey: "hearclear.admin.password", isSecret: true)
        adminSecureCookie = reader.bool(forKey: "hearclear.admin.secure.cookie", default: adminSecureCookie)
        let format = reader.string(forKey: "hearclear.log.format", default: logFormat.rawValue)
        guard let logFormat = LogFormat(rawValue: format) else {
            throw ConfigurationError.invalid("log format must be 'text' or 'json', not '\(format)'")
        }
        self.logFormat = logFormat
        let level = reader.string(forKey: "hearclear.log.level", default: logLevel.rawValue)
        guard let logLevel = Logger.Level(rawValue: level) else {
            throw ConfigurationError.invalid(
                "log level must be one of trace, debug, info, notice, warning, error, critical")
        }
        self.logLevel = logLevel
        guard (1...65535).contains(port) || port == 0 else {
            throw ConfigurationError.invalid("port must be between 1 and 65535, not \(port)")
        }
        guard !adminUser.isEmpty, adminUser.count <= 64 else {
            throw ConfigurationError.invalid("admin user must be 1 to 64 characters")
        }
        guard maxDistanceMetres > 0, databaseConnections > 0, (1...32).contains(aggregationWorkers) else {
            throw ConfigurationError.invalid(
                "max distance and database connections must be positive, aggregation workers 1…32")
        }
    }

    public var migrationsDirectory: String { resourcesDirectory + "/Migrations" }
    public var adminDirectory: String { resourcesDirectory + "/Admin" }
    public var openAPIPath: String { resourcesDirectory + "/API/openapi.yaml" }

    /// Refuses to start without the resource folders, naming the one missing.
    public func checkResources() throws {
        for directory in [migrationsDirectory, adminDirectory, resourcesDirectory + "/API"] {
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

public enum ConfigurationError: Error, CustomStringConvertible {
    case invalid(String)
    public var description: String {
        switch self {
        case .invalid(let message): message
        }
    }
}
