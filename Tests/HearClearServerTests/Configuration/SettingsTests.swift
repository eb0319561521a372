import Configuration
import Foundation
import HearClearEngine
import Testing

@testable import HearClearServer

/// Each setting is declared once (``ServerSettings``, ``EngineSettings``): the README's table,
/// the flags and the configurations' defaults are made from the declarations, and these tests
/// hold them to it.
@Suite("Settings declared once")
struct SettingsTests {
    static let readme = URL(filePath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appending(path: "README.md")

    @Test("the README's table of settings is the one made from the declarations")
    func readmeTable() throws {
        let text = try String(contentsOf: Self.readme, encoding: .utf8)
        let begin = "<!-- settings: made from ServerSettings.all; SettingsTests checks it -->\n"
        let end = "\n<!-- settings end -->"
        let start = try #require(text.range(of: begin), "README.md has no settings table marker")
        let stop = try #require(text.range(of: end, range: start.upperBound..<text.endIndex))
        let table = String(text[start.upperBound..<stop.lowerBound])
        let expected = ServerSettings.all.markdownTable
        #expect(table == expected, "README.md's table of settings should read:\n\(expected)")
    }

    @Test("keys, flags and variables are unique, and every default is a value of its kind")
    func declarations() {
        let all = ServerSettings.all
        #expect(Set(all.map(\.key)).count == all.count)
        #expect(Set(all.map(\.flag)).count == all.count)
        #expect(Set(all.map(\.environmentVariable)).count == all.count)
        for setting in all {
            if let value = setting.defaultValue {
                #expect(setting.value(value) != nil, "\(setting.key)'s default '\(value)' is not of its kind")
            }
        }
        // Every engine setting is one of serve's.
        for setting in EngineSettings.database + EngineSettings.serve + EngineSettings.license {
            #expect(all.contains(setting), "\(setting.key) is not in ServerSettings.all")
        }
        #expect(all.contains(EngineSettings.databaseReadURL))
    }

    @Test("a configuration read from nothing is the configuration of the declared defaults")
    func defaults() throws {
        let read = try ServerConfiguration(reader: ConfigReader(provider: InMemoryProvider(values: [:])))
        let built = ServerConfiguration()
        #expect(read.hostname == "127.0.0.1" && read.port == 8080)
        #expect(read.hostname == built.hostname && read.port == built.port)
        #expect(read.adminUser == built.adminUser && read.adminSecureCookie == built.adminSecureCookie)
        #expect(read.readCacheBytes == 64 << 20 && read.readCacheBytes == built.readCacheBytes)
        #expect(read.httpMaxAgeSeconds == built.httpMaxAgeSeconds)
        #expect(read.httpStaleWhileRevalidateSeconds == built.httpStaleWhileRevalidateSeconds)
        #expect(read.rateLimits == built.rateLimits && read.connections == built.connections)
        #expect(read.rateLimits.checkinsPerDevice == RateLimit(count: 20, periodSeconds: 3_600))
        #expect(read.rateLimits.exempt.isEmpty && read.rateLimits.trustedProxies.isEmpty)
        #expect(read.connections.headTimeout == .seconds(10) && read.connections.maxConnections == 4096)
        #expect(read.engine.dataDirectory == built.engine.dataDirectory && read.engine.dataDirectory == ".hearclear")
        #expect(read.engine.maxDistanceMetres == 250 && read.engine.referenceOffsetDB == 110)
        #expect(read.engine.databaseConnections == built.engine.databaseConnections)
        #expect(read.engine.aggregationWorkers == built.engine.aggregationWorkers)
        #expect(read.engine.calibrationIntervalSeconds == built.engine.calibrationIntervalSeconds)
        #expect(read.engine.logLevel == .info && read.engine.logFormat == .text)
        #expect(read.engine.dataLicense == built.engine.dataLicense)
    }

    @Test("every flag reaches its key: serve's flags parsed and read back")
    func flags() throws {
        let values = try SettingFlags.values(
            [
                "--port", "9090", "--hostname=0.0.0.0", "--admin-secure-cookie", "--max-distance-metres", "100.5",
                "--rate-checkins-device", "5/min", "--http-head-timeout=2.5", "--data-license", "CC0-1.0",
                "--data-license-url", "https://creativecommons.org/publicdomain/zero/1.0/",
                "--admin-password", "secret",
            ], settings: ServerSettings.all)
        let configuration = try ServerConfiguration(reader: ConfigReader(provider: InMemoryProvider(values: values)))
        #expect(configuration.port == 9090 && configuration.hostname == "0.0.0.0")
        #expect(configuration.adminSecureCookie)
        #expect(configuration.engine.maxDistanceMetres == 100.5)
        #expect(configuration.rateLimits.checkinsPerDevice == RateLimit(count: 5, periodSeconds: 60))
        #expect(configuration.connections.headTimeout == .milliseconds(2500))
        #expect(configuration.engine.dataLicense.name == "CC0-1.0")
        #expect(configuration.adminPassword == "secret")
        #expect(values[ServerSettings.adminPassword.configKey]?.isSecret == true)
    }

    @Test("a flag that is not a setting, lacks its value or has the wrong kind is refused, naming it")
    func refused() {
        func message(_ arguments: [String]) -> String? {
            do {
                _ = try SettingFlags.values(arguments, settings: ServerSettings.all)
                return nil
            } catch {
                return error.description
            }
        }
        #expect(message(["--bogus", "1"])?.contains("--bogus") == true)
        #expect(message(["--port"]) == "--port needs a value")
        #expect(message(["--port", "eighty"]) == "--port must be an integer, not 'eighty'")
        #expect(message(["--http-idle-timeout=soon"]) == "--http-idle-timeout must be a number, not 'soon'")
        #expect(message(["8080"])?.contains("'8080'") == true)
    }
}
