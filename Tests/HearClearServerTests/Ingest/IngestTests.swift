import Foundation
import HTTPTypes
import HearClearEngine
import HearClearServerTestSupport
import HummingbirdTesting
import NIOCore
import Testing

@Suite("Check-in ingest")
struct IngestTests {
    static func post(_ client: any TestClientProtocol, _ object: JSONObject) async throws -> TestResponse {
        try await client.execute(
            uri: "/api/v2/checkins", method: .post, headers: Fixture.jsonHeaders, body: Fixture.bytes(object)
        )
    }

    @Test("a check-in is stored pending, its venue and device created, its venue queued")
    func stored() async throws {
        try await withRouterApp { client, database in
            let object = Fixture.checkin(count: 30)
            let id = object["id"] as! String

            let response = try await Self.post(client, object)

            #expect(response.status == .created)
            #expect(response.headers[.location] == "/api/v2/checkins/\(id)")
            let body = response.body.json
            #expect(body["id"] as? String == id)
            #expect(body["status"] as? String == "pending")
            #expect(body["sampleCount"] as? Int == 30)
            #expect(
                try await database.writtenRows() == ["venues": 1, "devices": 1, "checkins": 1, "aggregation_queue": 1])

            let read = try await client.execute(uri: "/api/v2/checkins/\(id)", method: .get)
            #expect(read.status == .ok)
            #expect(read.body.json["status"] as? String == "pending")
            #expect(read.body.json["venue"] as? String == Fixture.venueID)
            let device = read.body.json["device"] as? JSONObject
            #expect(
                device?["id"] as? String == DeviceKey.testShort("c0ffee00-1111-2222-3333-444455556666"),
                "a device id is never shown whole, and shortened from its keyed form")
        }
    }

    @Test("samples are stored as dBFS of whole-second offsets, compact (migration 0017)")
    func storedArrays() async throws {
        try await withRouterApp { client, database in
            let object = Fixture.checkin(count: 12, average: -40)
            _ = try await Self.post(client, object)

            let loudness = Engine.testing(database).loudness
            let rows = try await database.query(
                "SELECT id, COALESCE(utc_offsets_min, ARRAY[utc_offset_min]) FROM checkins"
            )
            for try await (id, zones) in rows.decode((UUID, [Int16]).self) {
                let samples = try #require(try await loudness.storedCheckin(id: id))
                let (offsets, averages, peaks) = (samples.offsetsSeconds, samples.averageDBFS, samples.peakDBFS)
                #expect(offsets == Array(0..<12))
                // Fixture: average + (second % 3) * 0.5, peak average + 13.3.
                #expect(averages == (0..<12).map { Float(-40 + Double($0 % 3) * 0.5) })
                #expect(peaks == Array(repeating: Float(-40 + 13.3), count: 12))
                #expect(zones == [660], "all samples at +11:00 store one offset")
            }
        }
    }

    @Test("the same id with the same content: 200, the first answer, one row")
    func idempotent() async throws {
        try await withRouterApp { client, database in
            let object = Fixture.checkin()

            let first = try await Self.post(client, object)
            let second = try await Self.post(client, object)

            #expect(first.status == .created)
            #expect(second.status == .ok)
            #expect(String(buffer: first.body) == String(buffer: second.body))
            #expect(try await database.count("checkins") == 1)
            #expect(try await database.count("aggregation_queue") == 1)
        }
    }

    @Test("the same id with other content: 409, the stored check-in unchanged")
    func conflicting() async throws {
        try await withRouterApp { client, database in
            let id = UUID()
            _ = try await Self.post(client, Fixture.checkin(id: id, average: -30))

            let response = try await Self.post(client, Fixture.checkin(id: id, average: -20))

            #expect(response.status == .conflict)
            #expect(response.body.problemPointers == ["/id"])
            #expect(try await database.count("checkins") == 1)
            let loudness = Engine.testing(database).loudness
            let stored = try await database.query("SELECT id FROM checkins").decode(UUID.self)
            for try await id in stored {
                #expect(try await loudness.storedCheckin(id: id)?.averageDBFS.first == -30)
            }
        }
    }

    @Test("a resend whose samples carry other UTC offsets is other content: 409")
    func conflictingOffsets() async throws {
        try await withRouterApp { client, _ in
            let object = Fixture.checkin()
            var shifted = object
            // Same instants, written at +10:00 instead of +11:00: local hours differ.
            shifted["samples"] = (object["samples"] as! [JSONObject]).map { sample in
                var sample = sample
                let instant = ISO8601DateFormatter().date(from: sample["t"] as! String)!
                sample["t"] = Fixture.timestamp(instant, offsetHours: 10)
                return sample
            }

            let first = try await Self.post(client, object)
            let second = try await Self.post(client, shifted)

            #expect(first.status == .created)
            #expect(second.status == .conflict)
        }
    }

    @Test("a known venue with only some details given is fine; an unknown one needs all three")
    func partialVenueDetails() async throws {
        try await withRouterApp { client, database in
            _ = try await Self.post(client, Fixture.checkin(venue: "known"))
            var partial = Fixture.checkin(venue: "known")
            partial["venue"] = ["id": "known", "name": "Another name"]
            var unknown = Fixture.checkin(venue: "unknown")
            unknown["venue"] = ["id": "unknown", "name": "Only a name"]

            let known = try await Self.post(client, partial)
            let refused = try await Self.post(client, unknown)

            #expect(known.status == .created)
            #expect(refused.status == .unprocessableContent)
            #expect(Set(refused.body.problemPointers).isSuperset(of: ["/venue/latitude", "/venue/longitude"]))
            #expect(try await database.count("venues") == 1)
            #expect(
                try await database.count("venues", where: "name = 'The Arms'") == 1, "a check-in never renames a venue")
        }
    }

    @Test("concurrent submissions of one id make exactly one row")
    func concurrentSameID() async throws {
        try await withRouterApp { client, database in
            let object = Fixture.checkin()
            let body = Fixture.bytes(object)

            let statuses = try await withThrowingTaskGroup(of: HTTPResponse.Status.self) { group in
                for _ in 0..<16 {
                    group.addTask {
                        try await client.execute(
                            uri: "/api/v2/checkins", method: .post, headers: Fixture.jsonHeaders, body: body
                        ).status
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }

            #expect(statuses.filter { $0 == .created }.count == 1)
            #expect(statuses.filter { $0 == .ok }.count == 15)
            #expect(try await database.count("checkins") == 1)
            #expect(try await database.count("venues") == 1)
        }
    }

    @Test("an unknown venue is created from the check-in; a known one needs only its id")
    func venueAutoCreation() async throws {
        try await withRouterApp { client, database in
            let created = try await Self.post(client, Fixture.checkin(venue: "new-venue"))
            let byIDOnly = try await Self.post(client, Fixture.checkin(venue: "new-venue", withVenueDetails: false))

            #expect(created.status == .created)
            #expect(byIDOnly.status == .created)
            let venue = try await client.execute(uri: "/api/v2/venues/new-venue", method: .get)
            #expect(venue.status == .ok)
            #expect(venue.body.json["name"] as? String == "The Arms")
            #expect(venue.body.json["timezone"] as? String == "Australia/Sydney")
            #expect(venue.body.json["checkins"] as? Int == 2)
            #expect(try await database.count("venues") == 1)
        }
    }

    @Test("a phone far from the venue: stored, excluded as too_far_from_venue")
    func locationExclusion() async throws {
        try await withRouterApp { client, database in
            var object = Fixture.checkin()
            // 0.01° of latitude is about 1,112 m: far past the 250 m default.
            object["location"] = ["latitude": -33.8788, "longitude": 151.2093, "accuracy": 10]
            let id = object["id"] as! String

            let response = try await Self.post(client, object)

            #expect(response.status == .created)
            #expect(response.body.json["status"] as? String == "excluded")
            #expect(response.body.json["reasons"] as? [String] == ["too_far_from_venue"])
            let read = try await client.execute(uri: "/api/v2/checkins/\(id)", method: .get).body.json
            #expect(read["status"] as? String == "excluded")
            #expect((read["distanceMetres"] as? Double).map { abs($0 - 1112) < 5 } == true)
            #expect(try await database.count("checkins", where: "status = 'excluded'") == 1)
        }
    }

    @Test("a phone 100 m from the venue is not excluded")
    func locationNear() async throws {
        try await withRouterApp { client, _ in
            var object = Fixture.checkin()
            object["location"] = ["latitude": -33.8679, "longitude": 151.2093]  // ~100 m north

            let response = try await Self.post(client, object)

            #expect(response.body.json["status"] as? String == "pending")
        }
    }

    @Test("an unknown check-in is 404 and a malformed id 400, as problem documents")
    func readErrors() async throws {
        try await withRouterApp { client, _ in
            let missing = try await client.execute(uri: "/api/v2/checkins/\(UUID().uuidString)", method: .get)
            let malformed = try await client.execute(uri: "/api/v2/checkins/not-a-uuid", method: .get)

            #expect(missing.status == .notFound)
            #expect(missing.headers[.contentType] == "application/problem+json")
            #expect(malformed.status == .badRequest)
        }
    }
}
