import Foundation
import HTTPTypes
import HearClearModel
import HearClearServer
import HearClearServerTestSupport
import HearClearTestSupport
import HummingbirdTesting
import LoudnessCore
import NIOCore
import PostgresNIO
import Testing

@testable import HearClearEngine
@testable import HearClearServer

/// v2 samples with `lceq` and `bands` (docs/ARCHITECTURE.md, "API v2 rules" and "Sound
/// character"): both parsers read them alike, every rule has its 422 pointer, and a cell with
/// enough of them shows its `character` in the grid, never in v1.
@Suite("Check-ins with LCeq and bands")
struct SoundCharacterAPITests {
    /// `count` samples of a check-in (Fixture.checkin) with LCeq 4 dB over the average and bands
    /// 100, 125, 1000 Hz.
    static func checkin(count: Int = 30, _ change: (inout [JSONObject]) -> Void = { _ in }) -> JSONObject {
        var object = Fixture.checkin(count: count)
        var samples = object["samples"] as! [JSONObject]
        for index in samples.indices {
            let average = samples[index]["average"] as! Double
            samples[index]["lceq"] = average + 4
            samples[index]["bands"] = ["100": average - 8, "125": average - 9.5, "1000": average - 12.3]
        }
        change(&samples)
        object["samples"] = samples
        return object
    }

    static func setBand(_ samples: inout [JSONObject], _ index: Int, _ key: String, _ value: Any?) {
        var bands = samples[index]["bands"] as! JSONObject
        bands[key] = value
        samples[index]["bands"] = bands
    }

    // MARK: Parsing

    static func both(_ text: String) -> (fast: CheckinRequest?, decoder: CheckinRequest?) {
        FastParserTests.both(text)
    }

    @Test(
        "the fast parser reads lceq and bands as JSONDecoder does",
        arguments: [
            FastParserTests.text(checkin(count: 12)),
            FastParserTests.text(checkin(count: 12), pretty: true),
            #"{"samples":[{"t":"x","average":-30,"peak":-20,"lceq":-2.65e1,"bands":{"50":-40.25,"10000":-7E1}}]}"#,
            #"{"samples":[{"lceq":null,"bands":null},{"bands":{}},{"bands":{"123":1,"a/b~":-0.0,"":0}}]}"#,
            #"{"samples":[{"bands":{"100":-50},"lceq":-30,"average":-40,"more":{"bands":[1]}}]}"#,
        ]
    )
    func parsersAgree(_ body: String) {
        let (fast, decoder) = Self.both(body)
        #expect(decoder != nil)
        #expect(fast == decoder)
    }

    @Test(
        "the fast parser gives up on bands it does not read, leaving them to JSONDecoder",
        arguments: [
            #"{"samples":[{"bands":{"100":null}}]}"#,  // a null level
            #"{"samples":[{"bands":{"100":-50,"100":-51}}]}"#,  // a key twice
            #"{"samples":[{"bands":{"1\u00300":-50}}]}"#,  // an escaped key
            #"{"samples":[{"bands":[-50,-51]}]}"#,  // an array
            #"{"samples":[{"bands":{"100":"-50"}}]}"#,  // a string level
            #"{"samples":[{"lceq":"loud"}]}"#,
            #"{"samples":[{"lceq":1e999}]}"#,
        ]
    )
    func parserGivesUp(_ body: String) {
        #expect(Self.both(body).fast == nil)
    }

    @Test("a body without lceq and bands parses as before, and a sample with them equals its decoding")
    func plainBodies() throws {
        let plain = FastParserTests.text(Fixture.checkin(count: 40))
        let (fast, decoder) = Self.both(plain)
        #expect(fast != nil && fast == decoder)
        #expect(fast?.samples?.allSatisfy { $0.lceq == nil && $0.bands == nil } == true)
        let sample = try #require(Self.both(#"{"samples":[{"lceq":-26.5,"bands":{"100":-40.25}}]}"#).fast?.samples?[0])
        #expect(sample.lceq == -26.5 && sample.bands == ["100": -40.25])
    }

    // MARK: Validation

    struct Case: Sendable, CustomTestStringConvertible {
        var testDescription: String
        var pointers: [String]
        var change: @Sendable (inout [JSONObject]) -> Void
        var base: Bool = true

        init(
            _ name: String, _ pointers: [String], base: Bool = true,
            _ change: @Sendable @escaping (inout [JSONObject]) -> Void
        ) {
            testDescription = name
            self.pointers = pointers
            self.base = base
            self.change = change
        }

        var body: JSONObject {
            if base { return SoundCharacterAPITests.checkin(change) }
            var object = Fixture.checkin(count: 30)
            var samples = object["samples"] as! [JSONObject]
            change(&samples)
            object["samples"] = samples
            return object
        }
    }

    static let cases: [Case] = [
        Case("lceq above 20 dBFS", ["/samples/3/lceq"]) { $0[3]["lceq"] = 25.0 },
        Case("lceq under -200 dBFS", ["/samples/3/lceq"]) { $0[3]["lceq"] = -200.5 },
        Case("lceq of the wrong type", ["/samples/3/lceq"]) { $0[3]["lceq"] = "loud" },
        Case("lceq missing on sample 5 (and 6): one pointer", ["/samples/5/lceq"]) {
            $0[5]["lceq"] = nil
            $0[6]["lceq"] = nil
        },
        Case("lceq on sample 5 only", ["/samples/5/lceq"], base: false) { $0[5]["lceq"] = -20.0 },
        Case("lceq null on sample 5", ["/samples/5/lceq"]) { $0[5]["lceq"] = NSNull() },
        Case("an unknown band", ["/samples/3/bands/123"]) { setBand(&$0, 3, "123", -50.0) },
        Case("an unknown band with / and ~ in its name", ["/samples/0/bands/a~1b~0"]) {
            setBand(&$0, 0, "a/b~", -50.0)
        },
        Case("a band level above 20 dBFS", ["/samples/3/bands/100"]) { setBand(&$0, 3, "100", 20.5) },
        Case("a band level under -200 dBFS", ["/samples/3/bands/1000"]) { setBand(&$0, 3, "1000", -250.0) },
        Case("a band level of the wrong type", ["/samples/3/bands/100"]) { setBand(&$0, 3, "100", "-50") },
        Case("a null band level", ["/samples/3/bands/125"]) { setBand(&$0, 3, "125", NSNull()) },
        Case("bands missing on sample 4", ["/samples/4/bands"]) { $0[4]["bands"] = nil },
        Case("a band fewer on sample 4", ["/samples/4/bands"]) { setBand(&$0, 4, "125", nil) },
        Case("a band more on sample 4, and others after", ["/samples/4/bands"]) {
            setBand(&$0, 4, "160", -40.0)
            setBand(&$0, 9, "160", -40.0)
        },
        Case("bands on sample 4 only", ["/samples/4/bands"], base: false) { $0[4]["bands"] = ["100": -40.0] },
        Case("bands an empty object", ["/samples/0/bands"]) { samples in
            for index in samples.indices { samples[index]["bands"] = [String: Double]() }
        },
        Case("bands an array", ["/samples/0/bands"]) { $0[0]["bands"] = [-40.0, -41.0] },
    ]

    @Test("is refused with its pointer and writes nothing", arguments: cases)
    func refused(_ invalid: Case) async throws {
        try await withRouterApp { client, database in
            let response = try await client.execute(
                uri: "/api/v2/checkins", method: .post, headers: Fixture.jsonHeaders,
                body: Fixture.bytes(invalid.body))

            #expect(response.status == .unprocessableContent, "\(String(buffer: response.body).prefix(400))")
            #expect(response.headers[.contentType] == "application/problem+json")
            #expect(response.body.problemPointers == invalid.pointers)
            #expect(
                try await database.writtenRows() == ["venues": 0, "devices": 0, "checkins": 0, "aggregation_queue": 0])
        }
    }

    @Test("lceq and bands are stored as 0.1 dB; dBFS whatever the unit; null on every sample is none")
    func stored() async throws {
        try await withRouterApp { client, database in
            let full = Self.checkin(count: 12)
            var amplitude = Self.checkin(count: 12) { samples in
                for index in samples.indices {
                    samples[index]["average"] = 0.03
                    samples[index]["peak"] = 0.2
                }
            }
            amplitude["unit"] = "amplitude"
            amplitude["id"] = UUID().uuidString
            amplitude["device"] = ["id": "another-phone"]
            var none = Fixture.checkin(count: 12)
            none["samples"] = (none["samples"] as! [JSONObject]).map { sample in
                var sample = sample
                sample["lceq"] = NSNull()
                sample["bands"] = NSNull()
                return sample
            }
            none["device"] = ["id": "a-third-phone"]
            for body in [full, amplitude, none] {
                let response = try await client.execute(
                    uri: "/api/v2/checkins", method: .post, headers: Fixture.jsonHeaders, body: Fixture.bytes(body))
                #expect(response.status == .created, "\(String(buffer: response.body).prefix(300))")
            }

            let loudness = Engine.testing(database).loudness
            let rows = try await database.query("SELECT id FROM checkins ORDER BY received_at")
            var stored: [UUID: ([Int16]?, [Int16]?, [Int16]?)] = [:]
            for try await id in rows.decode(UUID.self) {
                let samples = try #require(try await loudness.storedCheckin(id: id))
                stored[id] = (samples.lceqDdB, samples.bandIndexes, samples.bandsDdB)
            }
            let samples = full["samples"] as! [JSONObject]
            let first = try #require(stored[UUID(uuidString: full["id"] as! String)!])
            // Fixture averages −31.2, −30.7, −30.2, …: LCeq −27.2, …; bands 100, 125, 1000 Hz.
            #expect(first.0 == samples.map { Int16(((($0["average"] as! Double) + 4) * 10).rounded()) })
            #expect(first.1 == [3, 4, 13])
            #expect(first.2?.prefix(6) == [-392, -407, -435, -387, -402, -430])
            let second = try #require(stored[UUID(uuidString: amplitude["id"] as! String)!])
            #expect(second.0?.first == -272 && second.1 == [3, 4, 13], "dBFS although the unit is amplitude")
            let third = try #require(stored[UUID(uuidString: none["id"] as! String)!])
            #expect(third.0 == nil && third.1 == nil && third.2 == nil)

            // The same body again is the same check-in; a band changed by 0.1 dB is another.
            let resend = try await client.execute(
                uri: "/api/v2/checkins", method: .post, headers: Fixture.jsonHeaders, body: Fixture.bytes(full))
            #expect(resend.status == .ok)
            var changed = full
            var changedSamples = samples
            Self.setBand(&changedSamples, 7, "1000", (samples[7]["average"] as! Double) - 12.4)
            changed["samples"] = changedSamples
            let conflict = try await client.execute(
                uri: "/api/v2/checkins", method: .post, headers: Fixture.jsonHeaders, body: Fixture.bytes(changed))
            #expect(conflict.status == .conflict)
        }
    }

    // MARK: The grid

    /// `count` seconds of a check-in with LCeq and bands 100, 125, 160 Hz and 500 Hz, 1, 2 kHz at
    /// `level` dBFS: bass-heavy (100 Hz jumps by 6 dB every other second, LC − LA 12 dB) or steady.
    static func spectralCheckin(
        venue: String, device: String, level: Double, start: Date, bass: Bool, count: Int = 40, bang: Int? = nil,
        id: UUID = UUID()
    ) -> ByteBuffer {
        let wobble = SubmissionFixture.wobbleDB
        let samples = (0..<count).map { second -> JSONObject in
            let average = second == bang ? level + 30 : level + wobble[second % wobble.count]
            let shape: [Double] =
                bass ? [second.isMultiple(of: 2) ? 0 : -6, -1, -2, -10, -11, -12] : [-5, -6, -12, -13, -14, -20]
            let keys = ["100", "125", "160", "500", "1000", "2000"]
            return [
                "t": RFC3339.format(start.addingTimeInterval(Double(second))), "average": average,
                "peak": average + 10, "lceq": average + (bass ? 12 : 3),
                "bands": Dictionary(uniqueKeysWithValues: zip(keys, shape.map { average + $0 })),
            ]
        }
        let body: JSONObject = [
            "id": id.uuidString, "unit": "dbfs", "samples": samples, "device": ["id": device],
            "venue": [
                "id": venue, "name": "Venue \(venue)", "latitude": -33.8688, "longitude": 151.2093,
                "timezone": "Australia/Sydney",
            ],
        ]
        return Fixture.bytes(body)
    }

    @Test("the v2 grid shows a cell's character (null when none); v1 never does")
    func grid() async throws {
        try await EngineTestApp.run { client, database in
            let start = SubmissionFixture.previousHourStart
            let hour = CheckinFixture(venue: "loud", device: "x", levelDBFS: 0, start: start).localHour
            for (device, level, bass, after) in [("p1", -40.0, true, 0.0), ("p2", -44.0, false, 300.0)] {
                let response = try await client.execute(
                    uri: "/api/v2/checkins", method: .post, headers: Fixture.jsonHeaders,
                    body: Self.spectralCheckin(
                        venue: "loud", device: device, level: level, start: start.addingTimeInterval(after),
                        bass: bass))
                #expect(response.status == .created)
            }
            // An hour earlier, a plain check-in: a cell without character.
            try await CheckinFixture(
                venue: "loud", device: "p3", levelDBFS: -50, start: start.addingTimeInterval(-3_600)
            ).submit(to: client)
            let grid = try await eventually("both cells") {
                let grid = try await JSONProbe.get("/api/v2/venues/loud/loudness", from: client)
                let days = grid?["days"] as? [JSONObject] ?? []
                let cells = days.reduce(0) { $0 + (($1["hours"] as? [JSONObject])?.count ?? 0) }
                let cell = grid.flatMap { JSONProbe.cell($0, day: hour.weekdayName, hour: hour.hour) }
                return cells == 2 && cell?["checkins"] as? Int == 2 ? grid : nil
            }
            let cell = try #require(JSONProbe.cell(grid, day: hour.weekdayName, hour: hour.hour))
            let character = try #require(cell["character"] as? JSONObject)
            #expect(Set(character.keys) == ["classes", "lcMinusLa", "la90", "conversation", "seconds", "basis"])
            #expect(character["basis"] as? String == "spectra rules")
            #expect(character["seconds"] as? Int == 80)
            let classes = try #require(character["classes"] as? [String: Double])
            #expect(
                classes == [
                    "babble": 0, "music": 0, "bass_heavy_music": 0.5, "steady_noise": 0.5, "quiet": 0, "uncertain": 0,
                ])
            // python3: statistics.median([3.0] * 40 + [12.0] * 40) == 7.5
            #expect(character["lcMinusLa"] as? Double == 7.5)
            let level = try #require(cell["level"] as? Double)
            #expect(character["conversation"] as? String == ConversationBand(calibratedDB: level).rawValue)
            #expect(character["conversation"] as? String == "raised voices", "about 68 dB")
            // LA90 as stored, model-corrected dBFS + the 110 dB reference offset, to 0.1 dB.
            let rows = try await database.query(
                "SELECT character_la90_dbfs FROM loudness_cells WHERE character_seconds = 80")
            var la90: Float?
            for try await value in rows.decode(Float.self) { la90 = value }
            let stored = try #require(la90)
            #expect(character["la90"] as? Double == ((Double(stored) + 110) * 10).rounded() / 10)
            // python3: w = [0, 0.4, -0.3, 0.2, -0.5, 0.1, -0.2]
            //   statistics.quantiles([-40 + w[i % 7] for i in range(40)] + [-44 + w[i % 7] for i in range(40)],
            //                        n=10, method='inclusive')[0] == -44.3: p2's quieter seconds set it
            #expect(abs(Double(stored) - -44.3) < 1e-4)

            let earlier = LocalHour(
                weekday: hour.hour == 0 ? (hour.weekday + 5) % 7 + 1 : hour.weekday, hour: (hour.hour + 23) % 24)
            let plain = try #require(JSONProbe.cell(grid, day: earlier.weekdayName, hour: earlier.hour))
            #expect(plain.keys.contains("character") && plain["character"] is NSNull)

            // v1 shows the same cells without any of it.
            for path in ["/api/v1/venue/loud", "/api/v1/venue/loud/volume"] {
                let body = try await client.execute(uri: path, method: .get) { String(buffer: $0.body) }
                #expect(body.contains("\"volume") || body.contains("volinfo"), "\(body.prefix(200))")
                for word in ["character", "lcMinusLa", "la90", "conversation", "bass_heavy"] {
                    #expect(!body.contains(word), "\(path): \(word)")
                }
            }
        }
    }
}
