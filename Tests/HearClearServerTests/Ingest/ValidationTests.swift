import CompressNIO
import Foundation
import HTTPTypes
import HearClearServerTestSupport
import HummingbirdTesting
import NIOCore
import PostgresNIO
import Testing

/// Every structural rule of docs/ARCHITECTURE.md, "API v2 rules", on `POST /api/v2/checkins`: the
/// status, the pointer in the problem document, and that no row was written anywhere.
@Suite("Check-in validation")
struct ValidationTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var testDescription: String
        var status: HTTPResponse.Status
        var pointer: String?
        var headers: HTTPFields = Fixture.jsonHeaders
        var body: @Sendable () -> ByteBuffer

        init(
            _ name: String, _ status: HTTPResponse.Status, _ pointer: String?,
            headers: HTTPFields = Fixture.jsonHeaders,
            body: @Sendable @escaping () -> ByteBuffer
        ) {
            testDescription = name
            self.status = status
            self.pointer = pointer
            self.headers = headers
            self.body = body
        }

        /// A valid check-in changed by `change`.
        static func changed(
            _ name: String, _ pointer: String?, status: HTTPResponse.Status = .unprocessableContent,
            count: Int = 30, _ change: @Sendable @escaping (inout JSONObject) -> Void
        ) -> Case {
            Case(name, status, pointer) {
                var object = Fixture.checkin(count: count)
                change(&object)
                return Fixture.bytes(object)
            }
        }
    }

    static func setSample(_ object: inout JSONObject, _ index: Int, _ key: String, _ value: Any?) {
        var samples = object["samples"] as! [JSONObject]
        samples[index][key] = value
        object["samples"] = samples
    }

    static func setNested(_ object: inout JSONObject, _ outer: String, _ key: String, _ value: Any?) {
        var inner = object[outer] as! JSONObject
        inner[key] = value
        object[outer] = inner
    }

    static let cases: [Case] = [
        Case("malformed JSON", .badRequest, nil) { ByteBuffer(string: #"{"id": "7d6c2d2e", "samples": [1, 2"#) },
        .changed("id of the wrong type", "/id") { $0["id"] = 42 },
        .changed("id not a UUID", "/id") { $0["id"] = "not-a-uuid" },
        .changed("average of the wrong type", "/samples/3/average") { setSample(&$0, 3, "average", "loud") },
        .changed("NaN-like string for a peak", "/samples/1/peak") { setSample(&$0, 1, "peak", "NaN") },
        .changed("a level of 1e9", "/samples/12/peak") { setSample(&$0, 12, "peak", 1e9) },
        .changed("missing device", "/device") { $0["device"] = nil },
        .changed("missing device id", "/device/id") { setNested(&$0, "device", "id", nil) },
        .changed("missing samples", "/samples") { $0["samples"] = nil },
        .changed("missing sample time", "/samples/2/t") { setSample(&$0, 2, "t", nil) },
        .changed("missing sample average", "/samples/4/average") { setSample(&$0, 4, "average", nil) },
        .changed("9 samples", "/samples", count: 9) { _ in },
        .changed("3601 samples", "/samples", count: 3601) { _ in },
        .changed("timestamps out of order", "/samples/5/t") { object in
            var samples = object["samples"] as! [JSONObject]
            samples.swapAt(4, 5)
            object["samples"] = samples
        },
        .changed("duplicated timestamp", "/samples/5/t") { object in
            let samples = object["samples"] as! [JSONObject]
            setSample(&object, 5, "t", samples[4]["t"])
        },
        .changed("sample times less than a second apart", "/samples/5/t") { object in
            let samples = object["samples"] as! [JSONObject]
            let t = (samples[4]["t"] as! String).replacingOccurrences(of: "+11:00", with: ".300+11:00")
            setSample(&object, 5, "t", t)
        },
        .changed("16 minutes in the future", "/samples/29/t") { object in
            setSample(&object, 29, "t", Fixture.timestamp(Date().addingTimeInterval(16 * 60)))
        },
        .changed("15 days old", "/samples/0/t") { object in
            object = Fixture.checkin(start: Date().addingTimeInterval(-15 * 86_400))
        },
        .changed("time without an offset", "/samples/0/t") { setSample(&$0, 0, "t", "2026-11-21T21:03:04") },
        .changed("latitude out of range", "/location/latitude") { setNested(&$0, "location", "latitude", 91.5) },
        .changed("venue longitude out of range", "/venue/longitude") { setNested(&$0, "venue", "longitude", 200) },
        .changed("bad venue id", "/venue/id") { setNested(&$0, "venue", "id", "bad id/with spaces") },
        .changed("venue id too long", "/venue/id") {
            setNested(&$0, "venue", "id", String(repeating: "a", count: 129))
        },
        .changed("unknown time zone", "/venue/timezone") { setNested(&$0, "venue", "timezone", "Mars/Olympus") },
        .changed("unknown unit", "/unit") { $0["unit"] = "decibels" },
        .changed("amplitude above 10", "/samples/0/average") { object in
            object["unit"] = "amplitude"
            var samples = object["samples"] as! [JSONObject]
            for i in samples.indices {
                samples[i]["average"] = 0.03
                samples[i]["peak"] = 0.1
            }
            samples[0]["average"] = 11.0
            object["samples"] = samples
        },
        .changed("unknown venue without its details", "/venue/name") { object in
            object["venue"] = ["id": "never-seen-venue"]
        },
        .changed("a name of 150 letters written with combining accents (300 code points)", "/venue/name") { object in
            setNested(&object, "venue", "name", String(repeating: "e\u{301}", count: 150))
        },
        .changed("a device id of 128 letters with combining accents", "/device/id") { object in
            setNested(&object, "device", "id", String(repeating: "e\u{301}", count: 128))
        },
        .changed("device.os without its name", "/device/os/name") { object in
            setNested(&object, "device", "os", ["version": "18.1"])
        },
        .changed("device.os without its version", "/device/os/version") { object in
            setNested(&object, "device", "os", ["name": "iOS"])
        },
        .changed("device.os name starting with a digit", "/device/os/name") { object in
            setNested(&object, "device", "os", ["name": "9OS", "version": "18.1"])
        },
        .changed("device.os version with a semicolon", "/device/os/version") { object in
            setNested(&object, "device", "os", ["name": "iOS", "version": "18.1;DROP"])
        },
        .changed("device.os version of 33 characters", "/device/os/version") { object in
            setNested(&object, "device", "os", ["name": "Android", "version": String(repeating: "1", count: 33)])
        },
        .changed("device.os as a string", "/device/os") { object in
            setNested(&object, "device", "os", "iOS 18.1")
        },
        .changed("a browser's automatic gain control left on", "/capture/autoGainControl") { object in
            object["capture"] = ["autoGainControl": true, "noiseSuppression": false, "echoCancellation": false]
        },
        .changed("a browser's noise suppression left on", "/capture/noiseSuppression") { object in
            object["capture"] =
                ["autoGainControl": false, "noiseSuppression": true, "echoCancellation": NSNull()] as JSONObject
        },
        .changed("a browser's echo cancellation left on", "/capture/echoCancellation") { object in
            object["capture"] = ["echoCancellation": true]
        },
        Case("a JSON array instead of an object", .unprocessableContent, "") { Fixture.bytes([1, 2, 3]) },
        Case("no Content-Type", .unsupportedMediaType, nil, headers: [:]) { Fixture.bytes(Fixture.checkin()) },
        Case(
            "form Content-Type", .unsupportedMediaType, nil,
            headers: [.contentType: "application/x-www-form-urlencoded"]
        ) {
            Fixture.bytes(Fixture.checkin())
        },
        Case("a body of 1 MiB + 1 byte", .contentTooLarge, nil) {
            ByteBuffer(repeating: UInt8(ascii: " "), count: (1 << 20) + 1)
        },
        Case(
            "a gzip bomb", .contentTooLarge, nil, headers: [.contentType: "application/json", .contentEncoding: "gzip"]
        ) {
            // 64 MiB of spaces: about 64 KiB compressed, well under the wire limit.
            var spaces = ByteBuffer(repeating: UInt8(ascii: " "), count: 64 << 20)
            return try! spaces.compress(with: .gzip())
        },
        Case(
            "gzip just over 8 MiB once decompressed", .contentTooLarge, nil,
            headers: [.contentType: "application/json", .contentEncoding: "gzip"]
        ) {
            var body = ByteBuffer(repeating: UInt8(ascii: " "), count: (8 << 20) + 10)
            return try! body.compress(with: .gzip())
        },
        Case(
            "gzip that is not gzip", .badRequest, nil,
            headers: [.contentType: "application/json", .contentEncoding: "gzip"]
        ) {
            Fixture.bytes(Fixture.checkin())
        },
        Case(
            "a wrong Content-Encoding", .unsupportedMediaType, nil,
            headers: [.contentType: "application/json", .contentEncoding: "br"]
        ) {
            Fixture.bytes(Fixture.checkin())
        },
    ]

    @Test("is refused and writes nothing", arguments: cases)
    func refused(_ invalid: Case) async throws {
        try await withRouterApp { client, database in
            let response = try await client.execute(
                uri: "/api/v2/checkins", method: .post, headers: invalid.headers, body: invalid.body()
            )

            #expect(response.status == invalid.status, "\(String(buffer: response.body).prefix(400))")
            #expect(response.headers[.contentType] == "application/problem+json")
            let problem = response.body.json
            #expect(problem["status"] as? Int == Int(invalid.status.code))
            #expect(problem["title"] is String)
            #expect(problem["type"] is String)
            if let pointer = invalid.pointer {
                #expect(response.body.problemPointers.contains(pointer), "pointers: \(response.body.problemPointers)")
            }
            #expect(
                try await database.writtenRows() == ["venues": 0, "devices": 0, "checkins": 0, "aggregation_queue": 0])
        }
    }

    @Test("odd but possible values are stored, not refused")
    func oddValuesPass() async throws {
        try await withRouterApp { client, database in
            var object = Fixture.checkin()
            Self.setSample(&object, 3, "peak", -50.0)  // peak under its average: cleaning's business
            Self.setSample(&object, 4, "average", -160.0)  // silence as iOS reports it
            Self.setSample(&object, 5, "peak", 3.5)  // a little above full scale

            let response = try await client.execute(
                uri: "/api/v2/checkins", method: .post, headers: Fixture.jsonHeaders, body: Fixture.bytes(object)
            )

            #expect(response.status == .created, "\(String(buffer: response.body))")
            #expect(try await database.count("checkins") == 1)
        }
    }

    @Test("a browser's check-in with its processing off, or not reported, is stored")
    func captureOffPasses() async throws {
        try await withRouterApp { client, database in
            var object = Fixture.checkin()
            object["capture"] =
                ["autoGainControl": false, "noiseSuppression": false, "echoCancellation": NSNull()] as JSONObject
            let response = try await client.execute(
                uri: "/api/v2/checkins", method: .post, headers: Fixture.jsonHeaders, body: Fixture.bytes(object))
            #expect(response.status == .created, "\(String(buffer: response.body))")
            #expect(try await database.count("checkins") == 1)
        }
    }

    @Test(
        "device.os is stored as its name and version; without it, nothing",
        arguments: [
            (["name": "iOS", "version": "18.1"], "iOS 18.1"), (["name": "Android", "version": "15"], "Android 15"),
            (["name": "HarmonyOS NEXT", "version": "5.0.1-beta"], "HarmonyOS NEXT 5.0.1-beta"),
        ])
    func operatingSystemStored(os: [String: String], stored: String) async throws {
        try await withRouterApp { client, database in
            var object = Fixture.checkin()
            Self.setNested(&object, "device", "os", os)
            let response = try await client.execute(
                uri: "/api/v2/checkins", method: .post, headers: Fixture.jsonHeaders, body: Fixture.bytes(object))
            let plain = Fixture.checkin(device: "c0ffee00-9999-2222-3333-444455556666")
            let without = try await client.execute(
                uri: "/api/v2/checkins", method: .post, headers: Fixture.jsonHeaders, body: Fixture.bytes(plain))

            #expect(response.status == .created, "\(String(buffer: response.body))")
            #expect(without.status == .created, "\(String(buffer: without.body))")
            let rows = try await database.query("SELECT device_os FROM checkins ORDER BY device_os NULLS LAST")
                .collect()
            #expect(try rows.map { try $0.decode(String?.self) } == [stored, nil])
        }
    }
}
