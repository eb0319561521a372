import Foundation
import HTTPTypes
import HearClearEngine
import HearClearServer
import HearClearServerTestSupport
import HearClearTestSupport
import HummingbirdTesting
import NIOCore
import PostgresNIO
import Testing

/// What the service keeps about a phone (docs/PRIVACY.md).
@Suite("Privacy: what is kept of a check-in")
struct PrivacyTests {
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
            let columns = try await database.texts(
                "SELECT column_name::text FROM information_schema.columns WHERE table_name = 'checkins'")
            #expect(columns.contains("distance_m") && columns.contains("location_accuracy_m"))
            #expect(!columns.contains { $0.contains("latitude") || $0.contains("longitude") }, "\(columns)")
            // … and no row holds them, in any column.
            let rows = try await database.texts("SELECT row_to_json(c)::text FROM checkins c")
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
    static func storedDevices(_ database: PostgresClient) async throws -> [String] {
        try await database.texts("SELECT client_id FROM devices ORDER BY id")
    }

    @Test(
        "device ids are kept keyed: HMAC-SHA-256 as Python computes it; the same id from v1 and v2 is one device",
        .enabled(if: ExportTests.hasPython, "no .venv/bin/python: run scripts/deps.sh"))
    func keyedDeviceIDs() async throws {
        let phone = "0A1B2C3D-1111-2222-3333-444455556666"
        // HMAC-SHA-256 by Python's `hmac` module: the independent reference for DeviceKey.
        let input = try JSONSerialization.data(withJSONObject: [DeviceKey.testSecret, phone])
        let expected = String(
            decoding: try ExportTests.runPython(
                "import hmac, hashlib, json, sys; k, m = json.load(sys.stdin); print(hmac.new(k.encode(), m.encode(), hashlib.sha256).hexdigest())",
                input: input),
            as: UTF8.self
        ).trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(expected.count == 64 && DeviceKey.tests.keyed(phone) == expected)
        try await withRouterApp { client, database in
            let object = Fixture.checkin(device: phone, count: 30)
            #expect(try await IngestTests.post(client, object).status == .created)
            let user = try await LegacyTests.post(
                client, "user/create", #"{"user": {"deviceID": "\#(phone)", "device": "iPhone"}}"#)
            #expect(user.status == .ok)
            let legacy = try await LegacyTests.post(
                client, "checkin/new",
                LegacyTests.checkinBody(
                    venue: "v1-keyed", deviceID: phone, start: Date().addingTimeInterval(-7200).rounded(),
                    offsetMinutes: 660, zone: "GMT+11:00"))
            #expect(legacy.status == .ok)
            #expect(try await Self.storedDevices(database) == [expected], "one device, keyed")
            #expect(try await database.count("checkins") == 2)
            let known = try await client.execute(uri: "/api/v1/user/\(phone)", method: .get)
            #expect(known.status == .ok, "v1 finds the device by the id it sends")
            // The phone's id is nowhere in the database's rows of devices and check-ins.
            for table in ["devices", "checkins"] {
                for row in try await database.texts("SELECT row_to_json(t)::text FROM \(table) t") {
                    #expect(!row.lowercased().contains(phone.lowercased()), "\(table): \(row)")
                }
            }
        }
    }

    @Test("another key makes another device of the same id")
    func anotherKeyAnotherDevice() async throws {
        try await withTestDatabase { database, _ in
            let other = try DeviceKey(secret: "another-deployment-device-key-0123456789")
            for key in [DeviceKey.tests, other, DeviceKey.tests] {
                try await Engine.testing(database) { $0.deviceKey = key }.devices.register(
                    clientID: "phone-1", model: nil)
            }
            #expect(
                try await Self.storedDevices(database) == [DeviceKey.tests.keyed("phone-1"), other.keyed("phone-1")])
        }
    }

    @Test("ids stored before keying are keyed after the migrations, their reports with them; the phone is still itself")
    func storedIDsConverted() async throws {
        try await withRouterApp { client, database in
            let phone = "c0ffee00-1111-2222-3333-444455556666"
            // As migration 0014 leaves a device of before: its id as sent, not keyed; a report by it.
            try await database.query(
                "INSERT INTO devices (client_id, keyed) VALUES (\(phone), false)", logger: testLogger)
            try await database.query(
                """
                INSERT INTO venues (external_id, name, latitude, longitude) VALUES ('keyed-venue', 'Keyed', 0, 0)
                """, logger: testLogger)
            try await database.query(
                """
                INSERT INTO venue_reports (venue_id, device_sha256, device_id, at, weekday, hour, felt)
                SELECT v.id, sha256(convert_to(\(phone), 'UTF8')), d.id, now(), 1, 0, 'louder'
                FROM venues v, devices d WHERE v.external_id = 'keyed-venue'
                """, logger: testLogger)
            let engine = Engine(client: database, configuration: testConfiguration().engine, logger: testLogger)
            #expect(try await engine.keyStoredDevices() == 1)
            #expect(try await engine.keyStoredDevices() == 0, "once")
            let keyed = DeviceKey.tests.keyed(phone)
            #expect(try await Self.storedDevices(database) == [keyed])
            #expect(try await database.count("devices", where: "keyed") == 1)
            #expect(
                try await database.count(
                    "venue_reports", where: "device_sha256 = sha256(convert_to('\(keyed)', 'UTF8'))") == 1)
            // The phone checks in with its id: the same device.
            let object = Fixture.checkin(device: phone, count: 30)
            #expect(try await IngestTests.post(client, object).status == .created)
            #expect(try await Self.storedDevices(database) == [keyed])
        }
    }
    @Test("the open-data exports hold nothing personal: no device id in any form, no phone coordinate, no check-in id")
    func exportsHoldNothingPersonal() async throws {
        try await EngineTestApp.run { client, _ in
            // Two phones at the fixture's venue, located at -33.8689, 151.2094 (the venue is at
            // -33.8688, 151.2093, which the export rightly names).
            let devices = ["c0ffee00-1111-2222-3333-444455556666", "deadbeef-1111-2222-3333-444455556666"]
            var ids: [String] = []
            for device in devices {
                let object = Fixture.checkin(device: device, count: 120)
                ids.append((object["id"] as! String).lowercased())
                #expect(try await IngestTests.post(client, object).status == .created)
            }
            let csv = try await eventually("the venue's cells in the export") { () -> String? in
                let response = try await client.execute(uri: "/api/v2/export/cells.csv", method: .get)
                let text = String(buffer: response.body)
                return text.contains(Fixture.venueID) ? text : nil
            }
            let geo = String(buffer: try await client.execute(uri: "/api/v2/export/cells.geojson", method: .get).body)
            #expect(geo.contains(Fixture.venueID))
            for text in [csv.lowercased(), geo.lowercased()] {
                for device in devices {
                    for form in [device, DeviceKey.tests.keyed(device), DeviceKey.testShort(device)] {
                        #expect(!text.contains(form.lowercased()), "\(form)")
                    }
                }
                for id in ids { #expect(!text.contains(id)) }
                #expect(!text.contains("33.8689") && !text.contains("151.2094"), "the phones' coordinates")
                #expect(text.contains("33.8688") && text.contains("151.2093"), "the venue's, which are public")
            }
        }
    }
}
