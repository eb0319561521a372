import Foundation
import HTTPTypes
import HearClearEngine
import HearClearModel
import HearClearServerTestSupport
import HearClearTestSupport
import Hummingbird
import HummingbirdTesting
import NIOCore
import PostgresNIO
import Testing

@testable import HearClearServer

/// A phone's access to its data and their erasure: `GET /api/v2/devices/{deviceId}/data`,
/// `DELETE /api/v2/devices/{deviceId}` (docs/PRIVACY.md).
@Suite("A device's data: access and erasure")
struct DeviceDataTests {
    static let phone = "e7a5e0f1-2222-4333-8444-555566667777"
    static let other = "0b0b0b0b-2222-4333-8444-555566667777"
    static let third = "0c0c0c0c-2222-4333-8444-555566667777"

    /// The one cell of a venue's grid, once it holds `checkins` check-ins (nil: once it has none).
    static func cell(_ venue: String, checkins: Int?, client: some TestClientProtocol) async throws -> [String: Any] {
        try await eventually("\(checkins.map(String.init) ?? "no") check-ins at \(venue)") {
            let days =
                try await JSONProbe.get("/api/v2/venues/\(venue)/loudness", from: client)?["days"] as? [[String: Any]]
            let cell = days?.lazy.compactMap { ($0["hours"] as? [[String: Any]])?.first }.first
            guard let checkins else { return cell == nil ? [:] : nil }
            return cell?["checkins"] as? Int == checkins ? cell : nil
        }
    }

    /// The phone alone at "solo"; at "busy" with two others, in the same hour; a report of it.
    static func seed(_ client: some TestClientProtocol) async throws -> (mine: [UUID], others: [UUID]) {
        let start = SubmissionFixture.previousHourStart
        var mine: [UUID] = []
        var others: [UUID] = []
        // "solo" ten minutes after "busy": a phone is at one venue at a time.
        for (venue, at) in [("busy", start), ("solo", start.addingTimeInterval(600))] {
            let checkin = CheckinFixture(venue: venue, device: phone, levelDBFS: -42, start: at)
            try await checkin.submit(to: client)
            mine.append(checkin.id)
        }
        for (device, level) in [(other, -45.0), (third, -46.0)] {
            let checkin = CheckinFixture(venue: "busy", device: device, levelDBFS: level, start: start)
            try await checkin.submit(to: client)
            others.append(checkin.id)
        }
        let report = try await client.execute(
            uri: "/api/v2/venues/busy/reports", method: .post, headers: Fixture.jsonHeaders,
            body: Fixture.bytes([
                "device": phone, "at": Fixture.timestamp(start.addingTimeInterval(60)), "felt": "louder",
            ]))
        #expect(report.status == .created)
        return (mine, others)
    }

    @Test("access: exactly the device's check-ins with their samples, its reports, its short id; 404 for another id")
    func access() async throws {
        try await EngineTestApp.run { client, _ in
            let (mine, others) = try await Self.seed(client)
            _ = try await Self.cell("solo", checkins: 1, client: client)
            let response = try await client.execute(uri: "/api/v2/devices/\(Self.phone)/data", method: .get)
            #expect(response.status == .ok)
            let body = try #require(
                try JSONSerialization.jsonObject(with: Data(buffer: response.body)) as? [String: Any])
            let device = try #require(body["device"] as? [String: Any])
            #expect(device["id"] as? String == DeviceKey.testShort(Self.phone))
            #expect(device["model"] as? String == "iPhone15,2")
            let checkins = try #require(body["checkins"] as? [[String: Any]])
            #expect(checkins.compactMap { $0["id"] as? String } == mine.map { $0.uuidString.lowercased() })
            for checkin in checkins {
                let samples = try #require(checkin["samples"] as? [String: Any])
                #expect((samples["averageDBFS"] as? [Double])?.count == 120)
                #expect((samples["peakDBFS"] as? [Double])?.count == 120)
                #expect(checkin.keys.contains("distanceMetres") && !checkin.keys.contains("latitude"))
            }
            #expect((body["reports"] as? [[String: Any]])?.count == 1)
            let text = String(buffer: response.body)
            for id in others { #expect(!text.contains(id.uuidString.lowercased()), "another device's check-in") }
            #expect(!text.contains(Self.phone) && !text.contains(DeviceKey.tests.keyed(Self.phone)))

            let unknown = try await client.execute(uri: "/api/v2/devices/never-seen-phone/data", method: .get)
            #expect(unknown.status == .notFound)
            let tooLong = try await client.execute(
                uri: "/api/v2/devices/\(String(repeating: "x", count: 129))/data", method: .get)
            #expect(tooLong.status == .badRequest)
        }
    }

    @Test("erasure: every row naming the device goes, its venues are judged again, other devices' data stays")
    func erasure() async throws {
        try await EngineTestApp.run { client, database in
            let (_, others) = try await Self.seed(client)
            let solo = try await Self.cell("solo", checkins: 1, client: client)
            let busy = try await Self.cell("busy", checkins: 3, client: client)
            #expect(solo["level"] != nil && busy["level"] != nil)
            let key = try #require(
                try await database.query(
                    "SELECT id FROM devices WHERE client_id = \(DeviceKey.tests.keyed(Self.phone))", logger: testLogger
                ).decode(Int64.self).first { _ in true })

            let erased = try await client.execute(uri: "/api/v2/devices/\(Self.phone)", method: .delete)
            #expect(erased.status == .accepted)
            let body = try #require(try JSONSerialization.jsonObject(with: Data(buffer: erased.body)) as? [String: Any])
            let removed = try #require(body["removed"] as? [String: Any])
            #expect(removed["checkins"] as? Int == 2 && removed["reports"] as? Int == 1)
            #expect(removed["calibration"] as? Bool == false && removed["device"] as? Bool == true)
            #expect(body["venuesRejudged"] as? Int == 2)
            let again = try await client.execute(uri: "/api/v2/devices/\(Self.phone)", method: .delete)
            #expect(again.status == .notFound)

            // Every table with a device column: nothing names the device any more (`checkins`
            // stands for its monthly partitions).
            var columns: [(String, String)] = []
            for try await column in try await database.query(
                """
                SELECT table_name::text, column_name::text FROM information_schema.columns
                WHERE table_schema = 'public' AND column_name IN ('device_id', 'device_sha256')
                  AND to_regclass(quote_ident(table_name)) NOT IN (SELECT inhrelid FROM pg_inherits)
                """, logger: testLogger
            ).decode((String, String).self) {
                columns.append(column)
            }
            #expect(
                Set(columns.map(\.0)) == [
                    "checkins", "checkin_hours", "device_offsets", "device_trust", "venue_reports",
                ])
            // Nor does a campaign's list of devices (migration 0026).
            #expect(try await database.count("venue_campaigns", where: "devices @> ARRAY[\(key)]::bigint[]") == 0)
            for (table, column) in columns {
                let condition =
                    column == "device_id"
                    ? "device_id = \(key)"
                    : "device_sha256 = sha256(convert_to('\(DeviceKey.tests.keyed(Self.phone))', 'UTF8'))"
                #expect(try await database.count(table, where: condition) == 0, "\(table).\(column)")
            }
            #expect(try await database.count("devices", where: "id = \(key)") == 0)
            // The others' data stays.
            #expect(try await database.count("devices") == 2)
            #expect(try await database.count("checkins") == 2)
            for id in others { #expect(try await database.count("checkins", where: "id = '\(id)'") == 1) }

            // Judged again without it: the cell that rested on it alone is gone, the busy one
            // rests on the two others (−45 and −46 dBFS, quieter than with the phone's −42: not an
            // outlier among three, |modified z| = 2.0).
            _ = try await Self.cell("solo", checkins: nil, client: client)
            let after = try await Self.cell("busy", checkins: 2, client: client)
            let before = try #require(busy["level"] as? Double)
            let now = try #require(after["level"] as? Double)
            #expect(now < before)

            // The admin's audit log: the erasure with its counts, no id.
            let audit = try await Engine.testing(database).administration.audit.recent(limit: 10)
            let entry = try #require(audit.first { $0.action == "device erased" })
            #expect(entry.username == "phone" && entry.subject == nil)
            #expect(entry.detail?.hasPrefix("2 check-ins, 1 reports") == true)
            #expect(!(entry.detail ?? "").contains(Self.phone))
        }
    }

    @Test("the device's id never reaches a log line's path")
    func pathsRedacted() {
        #expect(LoggedPath.redacted("/api/v2/devices/secret-phone/data") == "/api/v2/devices/{deviceId}/data")
        #expect(LoggedPath.redacted("/api/v2/devices/secret-phone") == "/api/v2/devices/{deviceId}")
        #expect(LoggedPath.redacted("/api/v1/user/SECRET-UUID") == "/api/v1/user/{deviceId}")
        #expect(LoggedPath.redacted("/api/v1/user/create") == "/api/v1/user/create")
        #expect(LoggedPath.redacted("/api/v2/venues/arms") == "/api/v2/venues/arms")
    }
    @Test("access and erasure are limited per client address")
    func limited() async throws {
        var configuration = testConfiguration()
        configuration.rateLimits.devicesPerAddress = RateLimit(count: 2, periodSeconds: 3_600)
        configuration.rateLimits.exempt = []
        configuration.rateLimits.trustedProxies = IPNetwork.loopback
        try await withTestDatabase { _, databaseConfiguration in
            let app = try await buildApplication(
                configuration: configuration, database: .external(databaseConfiguration), logger: testLogger)
            try await app.boundedTest(.live) { client in
                var statuses: [HTTPResponse.Status] = []
                for (method, path) in [
                    (HTTPRequest.Method.get, "/data"), (.delete, ""), (.get, "/data"),
                ] {
                    let response = try await client.execute(
                        uri: "/api/v2/devices/guessed-id-\(statuses.count)\(path)", method: method,
                        headers: [.xForwardedFor: "203.0.113.50"])
                    statuses.append(response.status)
                }
                #expect(statuses == [.notFound, .notFound, .tooManyRequests])
                let elsewhere = try await client.execute(
                    uri: "/api/v2/devices/guessed-id/data", method: .get, headers: [.xForwardedFor: "203.0.113.51"])
                #expect(elsewhere.status == .notFound, "another address has its own bucket")
            }
        }
    }
}
