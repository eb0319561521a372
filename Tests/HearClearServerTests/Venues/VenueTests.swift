import Foundation
import HTTPTypes
import HearClearServerTestSupport
import HummingbirdTesting
import NIOCore
import Testing

@Suite("Venues")
struct VenueTests {
    static var arms: JSONObject {
        [
            "name": "The Arms", "latitude": -33.8688, "longitude": 151.2093, "timezone": "Australia/Sydney",
            "address": "1 George St", "category": "pub",
        ]
    }

    @Test("PUT creates (201) then updates (200); GET reads it back")
    func putAndGet() async throws {
        try await withRouterApp { client, database in
            let created = try await client.execute(
                uri: "/api/v2/venues/4b05:arms", method: .put, headers: Fixture.jsonHeaders,
                body: Fixture.bytes(Self.arms)
            )
            var renamed = Self.arms
            renamed["name"] = "The New Arms"
            let updated = try await client.execute(
                uri: "/api/v2/venues/4b05:arms", method: .put, headers: Fixture.jsonHeaders,
                body: Fixture.bytes(renamed)
            )
            let read = try await client.execute(uri: "/api/v2/venues/4b05:arms", method: .get)

            #expect(created.status == .created)
            #expect(created.headers[.location] == "/api/v2/venues/4b05:arms")
            #expect(updated.status == .ok)
            let venue = read.body.json
            #expect(venue["id"] as? String == "4b05:arms")
            #expect(venue["name"] as? String == "The New Arms")
            #expect(venue["category"] as? String == "pub")
            #expect(venue["checkins"] as? Int == 0)
            #expect(venue.keys.contains("level") && venue["level"] is NSNull, "level is null until there is data")
            #expect(try await database.count("venues") == 1)
        }
    }

    @Test("a bad venue id in the path is 400; an unknown one 404")
    func badIDs() async throws {
        try await withRouterApp { client, _ in
            let bad = try await client.execute(uri: "/api/v2/venues/bad%20id", method: .get)
            let tooLong = try await client.execute(
                uri: "/api/v2/venues/\(String(repeating: "x", count: 129))", method: .get)
            let unknown = try await client.execute(uri: "/api/v2/venues/nobody-here", method: .get)

            #expect(bad.status == .badRequest)
            #expect(tooLong.status == .badRequest)
            #expect(unknown.status == .notFound)
            #expect(unknown.headers[.contentType] == "application/problem+json")
        }
    }

    @Test("PUT with invalid fields is 422 with their pointers and writes nothing")
    func invalidPut() async throws {
        try await withRouterApp { client, database in
            let response = try await client.execute(
                uri: "/api/v2/venues/arms", method: .put, headers: Fixture.jsonHeaders,
                body: Fixture.bytes(["name": "", "latitude": -95, "timezone": "Nowhere/Special"])
            )

            #expect(response.status == .unprocessableContent)
            #expect(Set(response.body.problemPointers) == ["/name", "/latitude", "/longitude", "/timezone"])
            #expect(try await database.count("venues") == 0)
        }
    }
}
