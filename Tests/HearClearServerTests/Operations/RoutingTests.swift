import Foundation
import HTTPTypes
import HearClearModel
import HearClearServer
import HearClearServerTestSupport
import HearClearTestSupport
import Hummingbird
import HummingbirdTesting
import NIOCore
import PostgresNIO
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

    @Test("/ready under load: with every database connection busy it is 200 slow, and requests still pass the gate")
    func readyWhileTheDatabaseIsBusy() async throws {
        try await withTestDatabase { _, configuration in
            var oneConnection = configuration
            oneConnection.options.maximumConnections = 1
            let busy = PostgresClient(configuration: oneConnection)
            var settings = testConfiguration()
            // The pool's query cannot answer while the test holds the connection, whatever the
            // limit: a short one only makes the test quick.
            settings.engine.readinessLimit = .milliseconds(200)
            let engine = Engine(
                client: busy, endpoint: DatabaseEndpoint(configuration), configuration: settings.engine,
                logger: testLogger)
            let router = try buildRouter(
                configuration: settings, engine: engine,
                migrations: Migrations(client: busy, directory: settings.migrationsDirectory, logger: testLogger))
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { await busy.run() }
                defer { group.cancelAll() }
                try await Application(router: router, logger: testLogger).boundedTest(.router) { client in
                    let ready = try await busy.withConnection { _ in
                        try await client.execute(uri: "/ready", method: .get)
                    }
                    let venue = try await client.execute(uri: "/api/v2/venues/nowhere", method: .get)

                    #expect(ready.status == .ok)
                    #expect(ready.body.json["status"] as? String == "slow")
                    #expect(!engine.outage.isDown, "slow is not an outage")
                    #expect(venue.status == .notFound, "answered by the database, not 503 by the gate")
                }
            }
        }
    }

    @Test("/ready is 503 while migrations are pending")
    func notReadyWithoutMigrations() async throws {
        try await withEmptyTestDatabase { database, _ in
            let settings = testConfiguration()
            let router = try buildRouter(
                configuration: settings,
                engine: Engine(client: database, configuration: settings.engine, logger: testLogger),
                migrations: Migrations(client: database, directory: settings.migrationsDirectory, logger: testLogger))
            try await Application(router: router).boundedTest(.router) { client in
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
                migrations: Migrations(client: database, migrations: [], logger: testLogger))
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

            try await Application(router: router).boundedTest(.router) { client in
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
