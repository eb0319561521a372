import Foundation
import HTTPTypes
import HearClearEngine
import HearClearServerTestSupport
import HummingbirdTesting
import NIOCore
import PostgresNIO
import Testing

/// The 2013 iOS client's own requests, byte for byte: no Content-Type, NSJSONSerialization's
/// pretty printing (`"key" : value`), `dd-MM-yyyy HH:mm:ss z` dates.
@Suite("v1: the 2013 client")
struct LegacyTests {
    /// `dd-MM-yyyy HH:mm:ss` of `instant` at `offsetMinutes` east of UTC.
    static func legacyDate(_ instant: Date, offsetMinutes: Int) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(secondsFromGMT: offsetMinutes * 60)
        formatter.dateFormat = "dd-MM-yyyy HH:mm:ss"
        return formatter.string(from: instant)
    }

    static func checkinBody(
        venue: String, deviceID: String, start: Date, offsetMinutes: Int, zone: String, count: Int = 12
    )
        -> String
    {
        let samples = (0..<count).map { second in
            """
                  {
                    "sampleDate" : "\(legacyDate(start.addingTimeInterval(Double(second)), offsetMinutes: offsetMinutes)) \(zone)",
                    "avgSample" : 0.03,
                    "maxSample" : 0.12
                  }
            """
        }
        return """
            {
              "checkin" : {
                "ID" : "\(venue)",
                "name" : "The Arms",
                "lat" : "-33.8688",
                "lon" : "151.2093",
                "device" : "iPhone",
                "deviceID" : "\(deviceID)",
                "samples" : [
            \(samples.joined(separator: ",\n"))
                ]
              }
            }
            """
    }

    static func post(_ client: any TestClientProtocol, _ path: String, _ body: String) async throws -> TestResponse {
        // No Content-Type: the platform default the 2013 client never overrode.
        try await client.execute(uri: "/api/v1/\(path)", method: .post, headers: [:], body: ByteBuffer(string: body))
    }

    struct Zone: Sendable, CustomTestStringConvertible {
        var name: String
        var offsetMinutes: Int
        var testDescription: String { name }
    }

    @Test(
        "a check-in is stored once, in dBFS, at the instant its zone says",
        arguments: [
            Zone(name: "GMT+11:00", offsetMinutes: 660), Zone(name: "GMT+11", offsetMinutes: 660),
            Zone(name: "AEDT", offsetMinutes: 660), Zone(name: "EST", offsetMinutes: -300),
            Zone(name: "UTC", offsetMinutes: 0),
        ]
    )
    func checkin(zone: Zone) async throws {
        try await withRouterApp { client, database in
            let start = Date().addingTimeInterval(-600).rounded()
            let body = Self.checkinBody(
                venue: "4b0588c4f964a520a9d422e3", deviceID: "A1B2C3D4-legacy-install", start: start,
                offsetMinutes: zone.offsetMinutes, zone: zone.name
            )

            let first = try await Self.post(client, "checkin/new", body)
            let resend = try await Self.post(client, "checkin/new", body)

            #expect(first.status == .ok, "\(String(buffer: first.body))")
            #expect(resend.status == .ok)
            #expect(try await database.count("checkins") == 1, "the derived id makes a resend harmless")
            let loudness = Engine.testing(database).loudness
            let rows = try await database.query(
                """
                SELECT started_at, id, source, zone_guessed, COALESCE(utc_offsets_min, ARRAY[utc_offset_min])
                FROM checkins
                """
            )
            for try await (startedAt, id, source, guessed, offsets) in rows.decode(
                (Date, UUID, String, Bool, [Int16]).self
            ) {
                let samples = try #require(try await loudness.storedCheckin(id: id))
                let (averages, peaks) = (samples.averageDBFS, samples.peakDBFS)
                #expect(startedAt == start)
                // python3: 20*math.log10(0.03) == -30.457574905606752; 20*math.log10(0.12) == -18.416375079047505
                #expect(averages.allSatisfy { abs($0 - -30.457575) < 0.0001 })
                #expect(peaks.allSatisfy { abs($0 - -18.416375) < 0.0001 })
                #expect(averages.count == 12)
                #expect(source == "v1")
                #expect(!guessed)
                #expect(offsets == [Int16(zone.offsetMinutes)])
            }
            #expect(try await database.count("venues", where: "external_id = '4b0588c4f964a520a9d422e3'") == 1)
            #expect(try await database.count("devices", where: "model = 'iPhone'") == 1)
        }
    }

    @Test("an unknown zone name falls back to the venue's zone and is recorded as guessed")
    func guessedZone() async throws {
        try await withRouterApp { client, database in
            _ = try await client.execute(
                uri: "/api/v2/venues/sydney-bar", method: .put, headers: Fixture.jsonHeaders,
                body: Fixture.bytes([
                    "name": "Bar", "latitude": -33.87, "longitude": 151.21, "timezone": "Australia/Sydney",
                ])
            )
            let start = Date().addingTimeInterval(-600).rounded()
            let sydney = TimeZone(identifier: "Australia/Sydney")!.secondsFromGMT(for: start) / 60
            let body = Self.checkinBody(
                venue: "sydney-bar", deviceID: "dev-guess", start: start, offsetMinutes: sydney, zone: "Ortszeit"
            )

            let response = try await Self.post(client, "checkin/new", body)

            #expect(response.status == .ok, "\(String(buffer: response.body))")
            #expect(try await database.count("checkins", where: "zone_guessed") == 1)
            let rows = try await database.query("SELECT started_at FROM checkins")
            for try await startedAt in rows.decode(Date.self) { #expect(startedAt == start) }
        }
    }

    @Test("check-in errors: no checkin is 404; an unreadable date or a broken body 400 with the legacy body")
    func checkinErrors() async throws {
        try await withRouterApp { client, database in
            let missing = try await Self.post(client, "checkin/new", #"{ "user" : { } }"#)
            let badDate = try await Self.post(
                client, "checkin/new",
                Self.checkinBody(venue: "v1", deviceID: "d1", start: Date(), offsetMinutes: 0, zone: "UTC")
                    .replacingOccurrences(of: "\"sampleDate\" : \"", with: "\"sampleDate\" : \"yesterday ")
            )
            let broken = try await Self.post(client, "checkin/new", "{ not json")
            let tooFew = try await Self.post(
                client, "checkin/new",
                Self.checkinBody(
                    venue: "v1", deviceID: "d1", start: Date().addingTimeInterval(-100), offsetMinutes: 0, zone: "UTC",
                    count: 5)
            )

            #expect(missing.status == .notFound)
            #expect(missing.body.json["result"] as? String == "notfound")
            for response in [badDate, broken, tooFew] {
                #expect(response.status == .badRequest)
                #expect(response.body.json["result"] as? String == "error")
                #expect(response.body.json["message"] is String)
            }
            #expect((tooFew.body.json["message"] as? String)?.contains("samples") == true)
            #expect(
                try await database.writtenRows() == ["venues": 0, "devices": 0, "checkins": 0, "aggregation_queue": 0])
        }
    }

    @Test("users: create (also when known), look up, and 403 without deviceID")
    func users() async throws {
        try await withRouterApp { client, database in
            let body = """
                {
                  "user" : {
                    "deviceID" : "A1B2C3D4-legacy-install",
                    "device" : "iPhone"
                  }
                }
                """
            let created = try await Self.post(client, "user/create", body)
            let again = try await Self.post(client, "user/create", body)
            let known = try await client.execute(uri: "/api/v1/user/A1B2C3D4-legacy-install", method: .get)
            let unknown = try await client.execute(uri: "/api/v1/user/nobody", method: .get)
            let noDevice = try await Self.post(client, "user/create", #"{ "user" : { "device" : "iPhone" } }"#)
            let noUser = try await Self.post(client, "user/create", "{ }")

            #expect(created.status == .ok)
            #expect(again.status == .ok)
            #expect(known.status == .ok)
            #expect(known.body.readableBytes == 0)
            #expect(unknown.status == .notFound)
            #expect(unknown.body.json["result"] as? String == "notfound")
            #expect(unknown.body.json["message"] as? String == "Request not found")
            #expect(noDevice.status == .forbidden)
            #expect(noUser.status == .forbidden)
            #expect(try await database.count("devices") == 1)
        }
    }

    @Test("venues: create once (string coordinates), read with the old keys, 403 and 404 as before")
    func venues() async throws {
        try await withRouterApp { client, database in
            let body = """
                {
                  "venue" : {
                    "id" : "4b0588c4f964a520a9d422e3",
                    "name" : "The Arms",
                    "latitude" : "-33.87",
                    "longitude" : "151.21",
                    "distance" : 120
                  }
                }
                """
            let created = try await Self.post(client, "venue/new", body)
            let again = try await Self.post(client, "venue/new", body)
            let read = try await client.execute(uri: "/api/v1/venue/4b0588c4f964a520a9d422e3", method: .get)
            let volume = try await client.execute(uri: "/api/v1/venue/4b0588c4f964a520a9d422e3/volume", method: .get)
            let unknown = try await client.execute(uri: "/api/v1/venue/unknown-venue", method: .get)
            let noName = try await Self.post(client, "venue/new", #"{ "venue" : { "id" : "x1" } }"#)

            #expect(created.status == .ok)
            #expect(again.status == .ok)
            #expect(try await database.count("venues") == 1)
            let venue = read.body.json["venue"] as? JSONObject
            #expect(venue?["foursquareID"] as? String == "4b0588c4f964a520a9d422e3")
            #expect(venue?["name"] as? String == "The Arms")
            #expect(venue?["latitude"] as? Double == -33.87)
            #expect(venue?["id"] is Int)
            #expect(read.body.json["volume"] is NSNull, "null until the venue has judged check-ins")
            #expect(volume.status == .ok)
            #expect(volume.body.json["volinfo"] is JSONObject)
            #expect(unknown.status == .notFound)
            #expect(unknown.body.json["message"] as? String == "Request not found")
            #expect(noName.status == .forbidden)
        }
    }

    @Test("volume_bounds is the live bands in amplitude, not a venue called volume_bounds")
    func volumeBounds() async throws {
        try await withRouterApp { client, _ in
            let response = try await client.execute(uri: "/api/v1/venue/volume_bounds", method: .get)

            #expect(response.status == .ok)
            let bounds = response.body.jsonArray
            #expect(bounds.map { $0["name"] as? String } == ["quiet", "moderate", "loud", "very loud"])
            // Bands 70/75/80 dB with the 110 dB reference offset. python3: 10**((70-110)/20) == 0.01,
            // round(10**((75-110)/20), 7) == 0.0177828, round(10**((80-110)/20), 7) == 0.0316228
            #expect(bounds.map { $0["upBound"] as? Double } == [0.01, 0.0177828, 0.0316228, 1])
            #expect(bounds.map { $0["lowBound"] as? Double } == [0, 0.01, 0.0177828, 0.0316228])
        }
    }
}
