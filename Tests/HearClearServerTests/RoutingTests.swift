import Foundation
import HTTPTypes
import HearClearServer
import HearClearStore
import HearClearTestSupport
import Hummingbird
import HummingbirdTesting
import NIOCore
import Testing

@testable import HearClearEngine

@Suite("Routing and operations")
struct RoutingTests {
    @Test("unknown paths are 404 and wrong methods 405 with Allow, as problem documents")
    func notFoundAndMethodNotAllowed() async throws {
        try await withRouterApp { client, _ in
            let unknown = try await client.execute(uri: "/api/v2/nothing-here", method: .get)
            let wrongMethod = try await client.execute(uri: "/api/v2/venues/arms", method: .delete)
            let wrongOnCheckins = try await client.execute(uri: "/api/v2/checkins", method: .get)

            #expect(unknown.status == .notFound)
            #expect(unknown.headers[.contentType] == "application/problem+json")
            #expect(wrongMethod.status == .methodNotAllowed)
            #expect(wrongMethod.headers[.allow] == "GET, HEAD, PUT")
            #expect(wrongMethod.headers[.contentType] == "application/problem+json")
            #expect(wrongOnCheckins.status == .methodNotAllowed)
            #expect(wrongOnCheckins.headers[.allow] == "POST")
        }
    }

    @Test("/health answers; /ready reports the database and migrations")
    func healthAndReady() async throws {
        try await withRouterApp { client, _ in
            let health = try await client.execute(uri: "/health", method: .get)
            let ready = try await client.execute(uri: "/ready", method: .get)

            #expect(health.status == .ok)
            #expect(ready.status == .ok)
            #expect(ready.body.json["status"] as? String == "ready")
        }
    }

    @Test("/ready is 503 while migrations are pending")
    func notReadyWithoutMigrations() async throws {
        let name = try await TestCluster.shared.emptyDatabase()
        let configuration = try await TestCluster.shared.cluster().configuration(database: name)
        try await TestCluster.withClient(configuration) { database in
            let settings = testConfiguration()
            let migrations = try Migration.load(from: settings.migrationsDirectory)
            let router = try buildRouter(
                configuration: settings,
                engine: Engine(client: database, configuration: settings.engine, logger: testLogger),
                migrations: MigrationRunner(client: database, migrations: migrations, logger: testLogger))
            try await Application(router: router).test(.router) { client in
                let ready = try await client.execute(uri: "/ready", method: .get)
                #expect(ready.status == .serviceUnavailable)
            }
        }
    }

    @Test("the OpenAPI description is served and names exactly the v2 routes that exist")
    func openAPIMatchesRoutes() async throws {
        let settings = testConfiguration()
        let document = try String(contentsOfFile: settings.openAPIPath, encoding: .utf8)
        let documented = OpenAPIPaths.operations(in: document)

        try await withTestDatabase { database, _ in
            let router = try buildRouter(
                configuration: settings,
                engine: Engine(client: database, configuration: settings.engine, logger: testLogger),
                migrations: MigrationRunner(client: database, migrations: [], logger: testLogger))
            let routed = Set(
                router.routes.filter { "\($0.path)".hasPrefix("/api/v2/") && $0.method != .head }
                    .map { "\($0.method.rawValue) \($0.path)" }
            )

            #expect(
                routed.subtracting(documented).isEmpty,
                "routes missing from openapi.yaml: \(routed.subtracting(documented).sorted())")
            #expect(
                documented.subtracting(routed).isEmpty,
                "openapi.yaml names routes that do not exist: \(documented.subtracting(routed).sorted())")

            try await Application(router: router).test(.router) { client in
                let served = try await client.execute(uri: "/api/v2/openapi.yaml", method: .get)
                #expect(served.status == .ok)
                #expect(String(buffer: served.body) == document)
            }
        }
    }
}

/// Reads `paths:` of an OpenAPI YAML document by indentation: path keys at two spaces,
/// operations at four. Enough for our own file, with no YAML library in the dependencies.
enum OpenAPIPaths {
    static func operations(in yaml: String) -> Set<String> {
        var operations: Set<String> = []
        var inPaths = false
        var currentPath: String?
        let methods: Set<String> = ["get", "put", "post", "delete", "patch", "options", "head"]
        for line in yaml.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("paths:") {
                inPaths = true
                continue
            }
            guard inPaths else { continue }
            if let first = line.first, first != " ", first != "#" { break }
            if line.hasPrefix("  /"), !line.hasPrefix("   ") {
                currentPath = String(line.dropFirst(2).split(separator: ":").first ?? "")
                    .trimmingCharacters(in: CharacterSet(charactersIn: "'\" "))
            } else if line.hasPrefix("    "), !line.hasPrefix("     "), let currentPath {
                let key = line.dropFirst(4).split(separator: ":").first.map(String.init) ?? ""
                if methods.contains(key) { operations.insert("\(key.uppercased()) \(currentPath)") }
            }
        }
        return operations
    }
}

@Suite("Metrics")
struct MetricsTests {
    @Test("/metrics answers in the Prometheus text format")
    func metrics() async throws {
        try await withRouterApp { client, _ in
            let response = try await client.execute(uri: "/metrics", method: .get)

            #expect(response.status == .ok)
            #expect(response.headers[.contentType]?.hasPrefix("text/plain; version=0.0.4") == true)
        }
    }
}
