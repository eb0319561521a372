import Foundation
import HTTPTypes
import HearClearServerTestSupport
import HummingbirdTesting
import NIOCore
import PostgresNIO
import Testing

/// What the service keeps about a phone (docs/PRIVACY.md).
@Suite("Privacy: what is kept of a check-in")
struct PrivacyTests {
    /// Every stored check-in row, whole, as PostgreSQL writes it out as JSON.
    static func checkinRows(_ database: PostgresClient) async throws -> [String] {
        var rows: [String] = []
        for try await text in try await database.query("SELECT row_to_json(c)::text FROM checkins c", logger: testLogger)
            .decode(String.self)
        {
            rows.append(text)
        }
        return rows
    }

    @Test("no coordinate of the phone is stored by v2 or v1 intake: only its distance and accuracy")
    func noCoordinates() async throws {
        try await withRouterApp { client, database in
            // v2, the phone at -33.8689, 151.2094 (±20 m), the venue at -33.8688, 151.2093.
            let object = Fixture.checkin(count: 30)
            let created = try await IngestTests.post(client, object)
            #expect(created.status == .created)
            // v1 (whose lat and lon are the venue's, created from them).
            let legacy = try await LegacyTests.post(
                client, "checkin/new",
                LegacyTests.checkinBody(
                    venue: "v1-privacy", deviceID: "0A1B2C3D-1111-2222-3333-444455556666",
                    start: Date().addingTimeInterval(-900).rounded(), offsetMinutes: 660, zone: "GMT+11:00"))
            #expect(legacy.status == .ok)

            // No column could hold them …
            var columns: [String] = []
            for try await name in try await database.query(
                "SELECT column_name::text FROM information_schema.columns WHERE table_name = 'checkins'",
                logger: testLogger
            ).decode(String.self) {
                columns.append(name)
            }
            #expect(columns.contains("distance_m") && columns.contains("location_accuracy_m"))
            #expect(!columns.contains { $0.contains("latitude") || $0.contains("longitude") }, "\(columns)")
            // … and no row holds them, in any column.
            let rows = try await Self.checkinRows(database)
            #expect(rows.count == 2)
            for row in rows {
                #expect(!row.contains("33.8689") && !row.contains("151.2094"), "\(row)")
            }
            // The distance, by the haversine on a sphere of 6,371,008.8 m (Python's math module:
            // 14.4529 m), and the accuracy sent.
            let kept = try await database.query(
                "SELECT distance_m, location_accuracy_m FROM checkins WHERE id = \(UUID(uuidString: object["id"] as! String)!)",
                logger: testLogger
            ).decode((Double?, Double?).self).first { _ in true }
            let distance = try #require(kept?.0)
            #expect(abs(distance - 14.4529) < 0.001)
            #expect(kept?.1 == 20)
        }
    }

    @Test("a resend is still told from a conflict without the coordinates: by the distance they give")
    func resendWithoutCoordinates() async throws {
        try await withRouterApp { client, database in
            let object = Fixture.checkin(count: 30)
            let first = try await IngestTests.post(client, object)
            #expect(first.status == .created)
            #expect(try await IngestTests.post(client, object).status == .ok, "the same request again")
            var moved = object
            moved["location"] = ["latitude": -33.8700, "longitude": 151.2094, "accuracy": 20]
            #expect(try await IngestTests.post(client, moved).status == .conflict, "the same id from elsewhere")
            var vaguer = object
            vaguer["location"] = ["latitude": -33.8689, "longitude": 151.2094, "accuracy": 50]
            #expect(try await IngestTests.post(client, vaguer).status == .conflict, "another accuracy")
            var none = object
            none["location"] = nil
            #expect(try await IngestTests.post(client, none).status == .conflict, "no location")
            #expect(try await database.count("checkins") == 1)
        }
    }
}
