import Foundation
import HTTPTypes
import HearClearModel
import HearClearServer
import HearClearServerTestSupport
import HearClearTestSupport
import Hummingbird
import HummingbirdTesting
import NIOCore
import Testing

@testable import HearClearEngine

/// While the engine knows the database is away, requests that need it are 503 problems with
/// `Retry-After` at once, v1 too; what needs no database answers; nothing is written.
@Suite("Requests while the database is away")
struct DatabaseOutageEndpointTests {
    @Test("503 with Retry-After while away, answered again once back")
    func gate() async throws {
        try await withTestDatabase { client, _ in
            let configuration = testConfiguration()
            let engine = Engine(client: client, configuration: configuration.engine, logger: testLogger)
            let router = try buildRouter(
                configuration: configuration, engine: engine,
                migrations: Migrations(client: client, directory: configuration.migrationsDirectory, logger: testLogger)
            )
            try await Application(router: router, logger: testLogger).boundedTest(.router) { app in
                engine.outage.failed(DatabaseUnavailable(), logger: testLogger)
                let checkin = try await app.execute(
                    uri: "/api/v2/checkins", method: .post, headers: [.contentType: "application/json"],
                    body: Fixture.bytes(Fixture.checkin()))
                let venue = try await app.execute(uri: "/api/v2/venues/anywhere", method: .get)
                let legacy = try await app.execute(uri: "/api/v1/venue/anywhere", method: .get)
                // Refused by the gate, not by the database: the database is there and would have
                // taken the check-in (as it does below once the outage has ended).
                for response in [checkin, venue] {
                    #expect(response.status == .serviceUnavailable)
                    #expect(response.headers[.retryAfter] == "5")
                    let problem = try JSONSerialization.jsonObject(with: Data(buffer: response.body)) as? [String: Any]
                    #expect(problem?["type"] as? String == "https://hearclear.app/problems/unavailable")
                }
                #expect(legacy.status == .serviceUnavailable)
                #expect(legacy.headers[.retryAfter] == "5")
                #expect(try await client.count("checkins") == 0)

                let health = try await app.execute(uri: "/health", method: .get)
                #expect(health.status == .ok)
                // /ready checks the database itself: it is there, so the outage ends.
                let ready = try await app.execute(uri: "/ready", method: .get)
                #expect(ready.status == .ok)
                #expect(!engine.outage.isDown)
                let again = try await app.execute(
                    uri: "/api/v2/checkins", method: .post, headers: [.contentType: "application/json"],
                    body: Fixture.bytes(Fixture.checkin()))
                #expect(again.status == .created, "\(String(buffer: again.body))")
            }
        }
    }
}
