import Configuration
import Foundation
import HearClearAdmin
import HearClearEngine
import HearClearHTTP
import HearClearModel
import HearClearPages
import Logging

/// Everything `serve` can be told: the engine's settings (``EngineConfiguration``, read through
/// as if they were this type's own, e.g. `configuration.referenceOffsetDB`) and the HTTP and admin
/// settings, read from flags, then the environment, then defaults (`reader` is built in that
/// order by the CLI). Each setting is declared once, in ``ServerSettings`` and ``EngineSettings``;
/// `hearclear.port` is `--port` and `HEARCLEAR_PORT`.
@dynamicMemberLookup
public struct ServerConfiguration: Sendable {
    public var engine = EngineConfiguration()
    public var hostname = ServerSettings.hostname.defaultValue!
    public var port = ServerSettings.port.defaultInt
    /// The admin's user name at `/farmer`.
    public var adminUser = ServerSettings.adminUser.defaultValue!
    /// bcrypt hash of the admin password (`$2b$12$…`); wins over `adminPassword`.
    public var adminPasswordHash: String?
    /// The admin password in clear, hashed at start. With neither set, a password is generated
    /// once and only its hash kept in `<dataDirectory>/admin-password.bcrypt`.
    public var adminPassword: String?
    /// Mark the admin session cookie `Secure` (set it when served over TLS).
    public var adminSecureCookie = ServerSettings.adminSecureCookie.defaultBool
    /// Bytes of encoded answers the read cache holds at most (0: no cache).
    public var readCacheBytes = ServerSettings.readCacheBytes.defaultInt
    /// `Cache-Control: max-age` of the read endpoints: how long a phone or a CDN may use an answer
    /// without asking again.
    public var httpMaxAgeSeconds = ServerSettings.httpMaxAge.defaultInt
    /// `Cache-Control: stale-while-revalidate` of the read endpoints: how long after that a cache
    /// may still answer with it while it revalidates (with the ETag) in the background.
    public var httpStaleWhileRevalidateSeconds = ServerSettings.httpStaleWhileRevalidate.defaultInt
    /// `Cache-Control: max-age` of the pages for people, and how long a venue's page is kept in
    /// memory (its alternatives nearby and the hour now change with no notification).
    public var pagesMaxAgeSeconds = ServerSettings.pagesMaxAge.defaultInt
    /// The map on the pages' results: off unless a tile server is named.
    public var map: PageMap?
    /// Rate limits of check-ins, metering and search (token buckets, per instance).
    public var rateLimits = RateLimitConfiguration()
    /// Time limits of a request's head, body and of idle connections, and the connection cap.
    public var connections = ConnectionLimits()
    /// The longest recording `POST /api/v2/meter` meters (tests set it lower).
    public var meterMaxDuration = AudioUploads.maxMeterDuration
    /// Recordings `POST /api/v2/meter` meters at once, each on a thread of its own; past it, 503.
    public var meterMaxConcurrent = ServerSettings.meterMaxConcurrent.defaultInt

    public init() {}

    public init(reader: ConfigReader) throws {
        self.init()
        engine = try EngineConfiguration(reader: reader)
        hostname = reader.string(ServerSettings.hostname)!
        port = reader.int(ServerSettings.port)
        adminUser = reader.string(ServerSettings.adminUser)!
        adminPasswordHash = reader.string(ServerSettings.adminPasswordHash)
        adminPassword = reader.string(ServerSettings.adminPassword)
        adminSecureCookie = reader.bool(ServerSettings.adminSecureCookie)
        readCacheBytes = reader.int(ServerSettings.readCacheBytes)
        httpMaxAgeSeconds = reader.int(ServerSettings.httpMaxAge)
        httpStaleWhileRevalidateSeconds = reader.int(ServerSettings.httpStaleWhileRevalidate)
        pagesMaxAgeSeconds = reader.int(ServerSettings.pagesMaxAge)
        rateLimits = try RateLimitConfiguration(reader: reader)
        connections = try ConnectionLimits(reader: reader)
        meterMaxConcurrent = reader.int(ServerSettings.meterMaxConcurrent)
        if let tiles = reader.string(ServerSettings.mapTilesURL), !tiles.isEmpty {
            map = try PageMap(
                tilesURL: tiles, attribution: reader.string(ServerSettings.mapAttribution) ?? "",
                leafletDirectory: reader.string(ServerSettings.leafletDirectory)!)
        }
        guard (1...65535).contains(port) || port == 0 else {
            throw ConfigurationError.invalid("port must be between 1 and 65535, not \(port)")
        }
        guard (1...1024).contains(meterMaxConcurrent) else {
            throw ConfigurationError.invalid(
                "meter max concurrent must be between 1 and 1024, not \(meterMaxConcurrent)")
        }
        guard !adminUser.isEmpty, adminUser.count <= 64 else {
            throw ConfigurationError.invalid("admin user must be 1 to 64 characters")
        }
        guard readCacheBytes >= 0, httpMaxAgeSeconds >= 0, httpStaleWhileRevalidateSeconds >= 0, pagesMaxAgeSeconds >= 0
        else {
            throw ConfigurationError.invalid(
                "read cache bytes, HTTP max age, stale-while-revalidate and pages max age must be ≥ 0")
        }
    }

    public subscript<Value>(dynamicMember keyPath: WritableKeyPath<EngineConfiguration, Value>) -> Value {
        get { engine[keyPath: keyPath] }
        set { engine[keyPath: keyPath] = newValue }
    }

    public subscript<Value>(dynamicMember keyPath: KeyPath<EngineConfiguration, Value>) -> Value {
        engine[keyPath: keyPath]
    }

    public var adminDirectory: String { engine.resourcesDirectory + "/Admin" }

    /// The admin's part of the configuration.
    public var admin: AdminSettings {
        AdminSettings(
            user: adminUser, passwordHash: adminPasswordHash, password: adminPassword, secureCookie: adminSecureCookie,
            dataDirectory: engine.dataDirectory, templatesDirectory: adminDirectory)
    }
    /// The pages' templates and style sheet (`<resources>/Pages`).
    public var pagesDirectory: String { engine.resourcesDirectory + "/Pages" }
    public var openAPIPath: String { engine.resourcesDirectory + "/API/openapi.yaml" }

    /// The folders `serve` needs under the resources folder.
    public static let resourceFolders = ["Migrations", "Admin", "Pages", "API"]

    /// Refuses to start without the resource folders, naming the one missing.
    public func checkResources() throws {
        try engine.checkResources(Self.resourceFolders)
    }
}
