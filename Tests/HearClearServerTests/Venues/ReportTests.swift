import Foundation
import HTTPTypes
import HearClearModel
import HearClearServerTestSupport
import HearClearTestSupport
import Hummingbird
import HummingbirdTesting
import LoudnessCore
import NIOCore
import PostgresNIO
import Testing

@testable import HearClearEngine
@testable import HearClearServer

/// Reports of wrong data over the API: `POST /api/v2/venues/{venueId}/reports` and its `GET`.
enum ReportFixture {
    /// A valid report body about `at` (by default a minute into the Arms' one measured hour).
    static func body(
        device: String = AdminDataSet.deviceA, at: Date = SubmissionFixture.previousHourStart.addingTimeInterval(60),
        felt: String = "louder", comment: String? = "A band started; much louder than shown."
    ) -> [String: Any] {
        var body: [String: Any] = ["device": device, "at": Fixture.timestamp(at), "felt": felt]
        if let comment { body["comment"] = comment }
        return body
    }

    static func post(
        _ client: some TestClientProtocol, venue: String = AdminDataSet.arms, _ body: [String: Any],
        headers: HTTPFields = Fixture.jsonHeaders
    ) async throws -> TestResponse {
        try await client.execute(
            uri: "/api/v2/venues/\(venue)/reports", method: .post, headers: headers, body: Fixture.bytes(body))
    }

    /// The venue-local cell of the Arms' one measured hour, as the API names it.
    static var armsCell: (day: String, hour: Int) {
        let hour = VenueClock(timeZoneIdentifier: "Australia/Sydney")!.localHour(
            at: SubmissionFixture.previousHourStart)
        return (hour.weekdayName, hour.hour)
    }
}

@Suite("Reports of wrong data: the API")
struct ReportTests {
    @Test("201: stored beside the cell and the level shown; Location answers it; the device is only hashed")
    func created() async throws {
        try await withRouterApp { client, database in
            _ = try await AdminDataSet.make(client, database)
            let response = try await ReportFixture.post(client, ReportFixture.body())
            #expect(response.status == .created, "\(response.body.string)")
            let body = response.body.json
            let id = try #require(body["id"] as? String)
            let location = "/api/v2/venues/arms/reports/\(id)"
            #expect(response.headers[.location] == location)
            #expect(body["venue"] as? String == "arms")
            #expect(body["felt"] as? String == "louder")
            #expect(body["comment"] as? String == "A band started; much louder than shown.")
            #expect(body["status"] as? String == "open")
            #expect(body["resolvedAt"] is NSNull)
            let cell = try #require(body["cell"] as? JSONObject)
            #expect(cell["day"] as? String == ReportFixture.armsCell.day)
            #expect(cell["hour"] as? Int == ReportFixture.armsCell.hour)
            // The fixture's cell: −38.0331 dBFS + 110 = 72.0 dB, "moderate".
            #expect(cell["level"] as? Double == 72.0)
            #expect(cell["label"] as? String == "moderate")
            #expect(cell["estimated"] as? Bool == false)
            let at = try #require(body["at"] as? String)
            #expect(RFC3339.parse(at)?.date == SubmissionFixture.previousHourStart.addingTimeInterval(60))
            #expect((body["links"] as? JSONObject)?["self"] as? String == location)

            let read = try await client.execute(uri: location, method: .get)
            #expect(read.status == .ok)
            #expect(read.body.string == response.body.string)

            // Only the SHA-256 of the device's keyed id is kept, linked to the device's row.
            #expect(try await database.count("venue_reports") == 1)
            #expect(
                try await database.count(
                    "venue_reports",
                    where: """
                        device_sha256 = sha256(convert_to('\(DeviceKey.tests.keyed(AdminDataSet.deviceA))', 'UTF8'))
                        AND device_id = (SELECT id FROM devices WHERE client_id = '\(DeviceKey.tests.keyed(AdminDataSet.deviceA))')
                        AND shown_level_db = 72 AND shown_label = 'moderate' AND NOT shown_estimated
                        """) == 1)
            let dump = try await database.query(
                "SELECT row_to_json(r)::text FROM venue_reports r", logger: testLogger
            ).collect().map { try $0.decode(String.self) }.joined()
            #expect(!dump.contains(AdminDataSet.deviceA) && !dump.contains(String(AdminDataSet.deviceA.prefix(12))))
        }
    }

    @Test("a resend is 200 with the same report; other content at the same instant is 409 at /at")
    func resends() async throws {
        try await withRouterApp { client, database in
            _ = try await AdminDataSet.make(client, database)
            let first = try await ReportFixture.post(client, ReportFixture.body())
            let again = try await ReportFixture.post(client, ReportFixture.body())
            let other = try await ReportFixture.post(client, ReportFixture.body(felt: "quieter"))
            let otherDevice = try await ReportFixture.post(client, ReportFixture.body(device: AdminDataSet.deviceB))

            #expect(first.status == .created)
            #expect(again.status == .ok)
            #expect(again.body.string == first.body.string)
            #expect(again.headers[.location] == nil)
            #expect(other.status == .conflict)
            #expect(other.body.problemPointers == ["/at"])
            #expect(otherDevice.status == .created)
            #expect(try await database.count("venue_reports") == 2)
        }
    }

    @Test("every rule is a 422 pointing at its field, and nothing is written")
    func validation() async throws {
        try await withRouterApp { client, database in
            _ = try await AdminDataSet.make(client, database)
            let now = Date()
            var tooLongDevice = ReportFixture.body()
            tooLongDevice["device"] = String(repeating: "d", count: 129)
            var wrongType = ReportFixture.body()
            wrongType["device"] = 42
            var nullFelt = ReportFixture.body()
            nullFelt["felt"] = NSNull()
            let cases: [(String, [String: Any], [String])] = [
                ("empty object", [:], ["/device", "/at", "/felt"]),
                ("blank device", ReportFixture.body(device: "  "), ["/device"]),
                ("device of 129 characters", tooLongDevice, ["/device"]),
                ("device not a string", wrongType, ["/device"]),
                ("at not RFC 3339", ["device": "d", "at": "yesterday", "felt": "louder"], ["/at"]),
                ("at without an offset", ["device": "d", "at": "2026-11-21T21:03:04", "felt": "louder"], ["/at"]),
                ("at an hour ahead", ReportFixture.body(at: now.addingTimeInterval(3_600)), ["/at"]),
                ("at 15 days ago", ReportFixture.body(at: now.addingTimeInterval(-15 * 86_400)), ["/at"]),
                ("felt another word", ReportFixture.body(felt: "deafening"), ["/felt"]),
                ("felt in capitals", ReportFixture.body(felt: "LOUDER"), ["/felt"]),
                ("felt null", nullFelt, ["/felt"]),
                (
                    "comment of 501 characters", ReportFixture.body(comment: String(repeating: "x", count: 501)),
                    ["/comment"]
                ),
                ("comment with NUL", ReportFixture.body(comment: "a\u{0}b"), ["/comment"]),
                (
                    "three at once", ["device": "", "at": "2026-13-01T00:00:00Z", "felt": "meh"],
                    ["/device", "/at", "/felt"]
                ),
            ]
            for (name, body, pointers) in cases {
                let response = try await ReportFixture.post(client, body)
                #expect(response.status == .unprocessableContent, "\(name): \(response.body.string)")
                #expect(response.headers[.contentType] == "application/problem+json", "\(name)")
                #expect(response.body.json["type"] as? String == "https://hearclear.app/problems/validation", "\(name)")
                #expect(Set(response.body.problemPointers) == Set(pointers), "\(name): \(response.body.string)")
            }
            #expect(try await database.count("venue_reports") == 0)

            // Not JSON, or no body at all.
            let text = try await ReportFixture.post(client, ReportFixture.body(), headers: [.contentType: "text/plain"])
            #expect(text.status == .unsupportedMediaType)
            let broken = try await client.execute(
                uri: "/api/v2/venues/arms/reports", method: .post, headers: Fixture.jsonHeaders,
                body: ByteBuffer(string: "{\"device\":"))
            #expect(broken.status == .badRequest)
            #expect(try await database.count("venue_reports") == 0)
        }
    }

    @Test("a comment counts characters, not bytes; blank is none; unknown fields are ignored")
    func lenientParts() async throws {
        try await withRouterApp { client, database in
            _ = try await AdminDataSet.make(client, database)
            // 500 characters of two bytes each (1,000 bytes of UTF-8), and 500 emoji of four.
            let accents = ReportFixture.body(comment: String(repeating: "é", count: 500))
            let emoji = ReportFixture.body(
                device: AdminDataSet.deviceB, comment: String(repeating: "🔊", count: 500))
            var extra = ReportFixture.body(device: AdminDataSet.deviceC, comment: "   ")
            extra["volume"] = 11
            extra["venue"] = ["id": "elsewhere"]

            let first = try await ReportFixture.post(client, accents)
            let second = try await ReportFixture.post(client, emoji)
            let third = try await ReportFixture.post(client, extra)
            let aboutRight = try await ReportFixture.post(
                client, ReportFixture.body(device: AdminDataSet.deviceD, felt: "about right", comment: nil))

            #expect(first.status == .created, "\(first.body.string)")
            #expect((first.body.json["comment"] as? String)?.count == 500)
            #expect(second.status == .created, "\(second.body.string)")
            #expect(third.status == .created)
            #expect(third.body.json["comment"] is NSNull)
            #expect(third.body.json["venue"] as? String == "arms")
            #expect(aboutRight.status == .created)
            #expect(aboutRight.body.json["felt"] as? String == "about right")
            #expect(try await database.count("venue_reports", where: "length(comment) = 500") == 2)
        }
    }

    @Test("an unknown venue is 404 and a bad venue or report id 400; nothing is written")
    func unknown() async throws {
        try await withRouterApp { client, database in
            _ = try await AdminDataSet.make(client, database)
            let unknown = try await ReportFixture.post(client, venue: "no-such-venue", ReportFixture.body())
            let badID = try await ReportFixture.post(client, venue: "no%20spaces", ReportFixture.body())
            let readUnknown = try await client.execute(
                uri: "/api/v2/venues/arms/reports/\(UUID().uuidString.lowercased())", method: .get)
            let readBad = try await client.execute(uri: "/api/v2/venues/arms/reports/not-a-uuid", method: .get)

            #expect(unknown.status == .notFound)
            #expect(unknown.body.json["type"] as? String == "https://hearclear.app/problems/not-found")
            #expect(badID.status == .badRequest)
            #expect(readUnknown.status == .notFound)
            #expect(readBad.status == .badRequest)
            #expect(try await database.count("venue_reports") == 0)

            // A report is found only under its own venue.
            let created = try await ReportFixture.post(client, ReportFixture.body())
            let id = try #require(created.body.json["id"] as? String)
            let elsewhere = try await client.execute(uri: "/api/v2/venues/xss/reports/\(id)", method: .get)
            #expect(elsewhere.status == .notFound)
        }
    }

    @Test("a report about an hour or a venue without data is kept, with nothing shown")
    func nothingToCompare() async throws {
        try await withRouterApp { client, database in
            _ = try await AdminDataSet.make(client, database)
            // Five hours before the Arms' one measured hour: no cell, no estimate.
            let earlier = SubmissionFixture.previousHourStart.addingTimeInterval(-5 * 3_600)
            let emptyHour = try await ReportFixture.post(client, ReportFixture.body(at: earlier))
            #expect(emptyHour.status == .created, "\(emptyHour.body.string)")
            let cell = try #require(emptyHour.body.json["cell"] as? JSONObject)
            let expected = VenueClock(timeZoneIdentifier: "Australia/Sydney")!.localHour(at: earlier)
            #expect(cell["day"] as? String == expected.weekdayName)
            #expect(cell["hour"] as? Int == expected.hour)
            #expect(cell["level"] is NSNull && cell["label"] is NSNull && cell["estimated"] is NSNull)

            // A venue without check-ins or a zone: the hour is read in the offset `at` was written with.
            let put = try await client.execute(
                uri: "/api/v2/venues/quiet-corner", method: .put, headers: Fixture.jsonHeaders,
                body: Fixture.bytes(["name": "Quiet Corner", "latitude": 48.85, "longitude": 2.35]))
            #expect(put.status == .created)
            let at = Date().addingTimeInterval(-3_600)
            var body = ReportFixture.body(device: "someone-new", felt: "quieter", comment: nil)
            body["at"] = Fixture.timestamp(at, offsetHours: 2)
            let bare = try await ReportFixture.post(client, venue: "quiet-corner", body)
            #expect(bare.status == .created, "\(bare.body.string)")
            let local = LocalHour(localSecondsSinceEpoch: at.timeIntervalSince1970 + 7_200)
            let bareCell = try #require(bare.body.json["cell"] as? JSONObject)
            #expect(bareCell["day"] as? String == local.weekdayName)
            #expect(bareCell["hour"] as? Int == local.hour)
            #expect(bareCell["level"] is NSNull)
            // A device that never checked in is kept by its hash alone.
            #expect(
                try await database.count("venue_reports", where: "device_id IS NULL AND shown_level_db IS NULL") == 1)
            #expect(try await database.count("venue_reports") == 2)
        }
    }
}

/// The report limits over a real socket: as in ``RateLimitTests``, loopback is the trusted proxy
/// whose X-Forwarded-For names the clients, and nothing is exempt.
@Suite("Reports of wrong data: rate limits")
struct ReportRateLimitTests {
    func withLimitedApp(
        _ body: @Sendable @escaping (any TestClientProtocol, PostgresClient) async throws -> Void
    ) async throws {
        var configuration = testConfiguration()
        configuration.rateLimits.reportsPerDevice = RateLimit(count: 2, periodSeconds: 3_600)
        configuration.rateLimits.reportsPerAddress = RateLimit(count: 3, periodSeconds: 3_600)
        configuration.rateLimits.exempt = []
        configuration.rateLimits.trustedProxies = IPNetwork.loopback
        try await withTestDatabase { client, databaseConfiguration in
            let app = try await buildApplication(
                configuration: configuration, database: .external(databaseConfiguration), logger: testLogger)
            try await app.boundedTest(.live) { testClient in
                let put = try await testClient.execute(
                    uri: "/api/v2/venues/arms", method: .put, headers: Fixture.jsonHeaders,
                    body: Fixture.bytes([
                        "name": "The Arms", "latitude": -33.8688, "longitude": 151.2093, "timezone": "Australia/Sydney",
                    ]))
                guard put.status == .created else { throw AdminBrowserError("venue: \(put.status)") }
                try await body(testClient, client)
            }
        }
    }

    func post(_ client: any TestClientProtocol, device: String, from address: String, minute: Int) async throws
        -> TestResponse
    {
        let at = SubmissionFixture.previousHourStart.addingTimeInterval(Double(minute) * 60)
        var headers = Fixture.jsonHeaders
        headers[.xForwardedFor] = address
        return try await ReportFixture.post(client, ReportFixture.body(device: device, at: at), headers: headers)
    }

    @Test("a device past its limit gets 429 with Retry-After; a resend costs nothing; another device goes on")
    func perDevice() async throws {
        try await withLimitedApp { client, database in
            #expect(try await post(client, device: "phone-a", from: "203.0.113.1", minute: 1).status == .created)
            let resend = try await post(client, device: "phone-a", from: "203.0.113.2", minute: 1)
            #expect(resend.status == .ok)
            #expect(try await post(client, device: "phone-a", from: "203.0.113.3", minute: 2).status == .created)
            let refused = try await post(client, device: "phone-a", from: "203.0.113.4", minute: 3)
            #expect(refused.status == .tooManyRequests)
            let seconds = try #require(refused.headers[.retryAfter].flatMap(Int.init))
            #expect(seconds > 1700 && seconds <= 1800, "a token every 30 min")
            #expect(refused.body.json["type"] as? String == "https://hearclear.app/problems/rate-limited")
            #expect((refused.body.json["detail"] as? String)?.contains("reports from this device") == true)
            #expect(try await post(client, device: "phone-b", from: "203.0.113.5", minute: 3).status == .created)
            #expect(try await database.count("venue_reports") == 3)
        }
    }

    @Test("an address past its limit gets 429 whatever the device; check-ins keep their own buckets")
    func perAddress() async throws {
        try await withLimitedApp { client, database in
            for (minute, device) in ["d1", "d2", "d3"].enumerated() {
                #expect(try await post(client, device: device, from: "198.51.100.9", minute: minute).status == .created)
            }
            let refused = try await post(client, device: "d4", from: "198.51.100.9", minute: 4)
            #expect(refused.status == .tooManyRequests)
            #expect((refused.body.json["detail"] as? String)?.contains("reports from this address") == true)
            #expect(try await post(client, device: "d4", from: "198.51.100.10", minute: 4).status == .created)
            let checkin = try await client.execute(
                uri: "/api/v2/checkins", method: .post,
                headers: [.contentType: "application/json", .xForwardedFor: "198.51.100.9"],
                body: Fixture.bytes(Fixture.checkin(venue: "arms", device: "d1")))
            #expect(checkin.status == .created, "\(checkin.body.string)")
            #expect(try await database.count("venue_reports") == 4)
        }
    }

    @Test("the pages' report form shares the address's report limit with the API")
    func pageForm() async throws {
        try await withLimitedApp { client, database in
            for (minute, device) in ["d1", "d2"].enumerated() {
                #expect(try await post(client, device: device, from: "192.0.2.7", minute: minute).status == .created)
            }
            func page(_ address: String) async throws -> TestResponse {
                try await client.execute(
                    uri: "/venues/arms/report", method: .post,
                    headers: [.contentType: "application/x-www-form-urlencoded", .xForwardedFor: address],
                    body: ByteBuffer(string: "felt=louder"))
            }
            let accepted = try await page("192.0.2.7")
            #expect(accepted.status == .ok, "\(accepted.body.string)")
            #expect(accepted.body.string.contains("Thank you"))
            let refused = try await page("192.0.2.7")
            #expect(refused.status == .tooManyRequests)
            #expect(refused.headers[.contentType] == "text/html; charset=utf-8")
            #expect(refused.headers[.retryAfter] != nil)
            #expect(refused.body.string.contains("<p>More than 3/h reports from this address; try again in"))
            #expect(try await page("192.0.2.8").status == .ok)
            #expect(try await database.count("venue_reports") == 4)
        }
    }
}
