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

/// v2 check-ins with the phone's own `classes` (docs/ARCHITECTURE.md, "The phone's own classes"):
/// both parsers read them alike, every rule has its 422 pointer, they are stored compactly, v1
/// never carries them, and a cell's `character` says what it rests on.
@Suite("Check-ins with the phone's own classes")
struct PhoneClassesAPITests {
    /// Three windows over the first 30 seconds: voices, music with a bass drum, silence.
    static var classes: JSONObject {
        [
            "classifier": ["name": "yamnet", "version": "1"],
            "vocabulary": "audioset",
            "windows": [
                [
                    "offset": 0, "seconds": 10,
                    "top": [["label": "Speech", "confidence": 0.83], ["label": "Dog", "confidence": 0.5]],
                ],
                [
                    "offset": 10, "seconds": 10,
                    "top": [["label": "Music", "confidence": 0.7], ["label": "Bass drum", "confidence": 0.3]],
                ],
                ["offset": 20, "seconds": 10, "top": [["label": "Silence", "confidence": 0.9]]],
            ] as [JSONObject],
        ]
    }

    /// A check-in of 30 samples (Fixture.checkin) with ``classes``, changed by `change`.
    static func checkin(_ change: (inout JSONObject) -> Void = { _ in }) -> JSONObject {
        var object = Fixture.checkin(count: 30)
        var classes = Self.classes
        change(&classes)
        object["classes"] = classes
        return object
    }

    static func setWindow(_ classes: inout JSONObject, _ index: Int, _ key: String, _ value: Any?) {
        var windows = classes["windows"] as! [JSONObject]
        windows[index][key] = value
        classes["windows"] = windows
    }

    static func setLabel(_ classes: inout JSONObject, _ window: Int, _ index: Int, _ key: String, _ value: Any?) {
        var windows = classes["windows"] as! [JSONObject]
        var top = windows[window]["top"] as! [JSONObject]
        top[index][key] = value
        windows[window]["top"] = top
        classes["windows"] = windows
    }

    // MARK: Parsing

    @Test(
        "the fast parser reads classes as JSONDecoder does",
        arguments: [
            FastParserTests.text(checkin()),
            FastParserTests.text(checkin(), pretty: true),
            #"{"classes":null}"#,
            #"{"classes":{"classifier":null,"vocabulary":null,"windows":null}}"#,
            #"{"classes":{"windows":[{"top":null},{"offset":1.5,"seconds":1e1,"top":[{"label":null,"confidence":null}]}],"more":[1]}}"#,
            #"{"classes":{"classifier":{"name":"a","version":"b","x":{}},"windows":[],"vocabulary":"soundanalysis"}}"#,
        ]
    )
    func parsersAgree(_ body: String) {
        let (fast, decoder) = FastParserTests.both(body)
        #expect(decoder != nil)
        #expect(fast == decoder)
    }

    // MARK: Validation

    struct Case: Sendable, CustomTestStringConvertible {
        var testDescription: String
        var pointers: [String]
        var change: @Sendable (inout JSONObject) -> Void

        init(_ name: String, _ pointers: [String], _ change: @Sendable @escaping (inout JSONObject) -> Void) {
            testDescription = name
            self.pointers = pointers
            self.change = change
        }
    }

    static let cases: [Case] = [
        Case("no classifier", ["/classes/classifier"]) { $0["classifier"] = nil },
        Case("a classifier without a name", ["/classes/classifier/name"]) { $0["classifier"] = ["version": "1"] },
        Case("a classifier name of 65 characters", ["/classes/classifier/name"]) {
            $0["classifier"] = ["name": String(repeating: "y", count: 65), "version": "1"]
        },
        Case("an empty classifier version", ["/classes/classifier/version"]) {
            $0["classifier"] = ["name": "yamnet", "version": " "]
        },
        Case("no vocabulary", ["/classes/vocabulary"]) { $0["vocabulary"] = nil },
        Case("an unknown vocabulary", ["/classes/vocabulary"]) { $0["vocabulary"] = "yamnet" },
        Case("no windows", ["/classes/windows"]) { $0["windows"] = nil },
        Case("no window", ["/classes/windows"]) { $0["windows"] = [JSONObject]() },
        Case("more windows than samples", ["/classes/windows"]) {
            $0["windows"] = (0..<31).map {
                ["offset": $0, "seconds": 1, "top": [["label": "Speech", "confidence": 1]]]
            }
        },
        Case("a negative offset", ["/classes/windows/0/offset"]) { setWindow(&$0, 0, "offset", -1) },
        Case("an offset of a fraction of a second", ["/classes/windows/1/offset"]) {
            setWindow(&$0, 1, "offset", 10.5)
        },
        Case("a window of 0 seconds", ["/classes/windows/1/seconds"]) { setWindow(&$0, 1, "seconds", 0) },
        Case("a window without seconds", ["/classes/windows/1/seconds"]) { setWindow(&$0, 1, "seconds", nil) },
        Case("a window overlapping the one before", ["/classes/windows/1/offset"]) { setWindow(&$0, 1, "offset", 9) },
        Case("windows out of order", ["/classes/windows/2/offset"]) { setWindow(&$0, 2, "offset", 5) },
        Case("a window past the check-in's 30 seconds", ["/classes/windows/2/seconds"]) {
            setWindow(&$0, 2, "seconds", 11)
        },
        Case("a window without top labels", ["/classes/windows/0/top"]) { setWindow(&$0, 0, "top", nil) },
        Case("a window with no label", ["/classes/windows/0/top"]) { setWindow(&$0, 0, "top", [JSONObject]()) },
        Case("six labels in a window", ["/classes/windows/2/top"]) {
            setWindow(&$0, 2, "top", (0..<6).map { ["label": "L\($0)", "confidence": 0.1] })
        },
        Case("a confidence over 1", ["/classes/windows/0/top/1/confidence"]) {
            setLabel(&$0, 0, 1, "confidence", 1.01)
        },
        Case("a negative confidence", ["/classes/windows/1/top/0/confidence"]) {
            setLabel(&$0, 1, 0, "confidence", -0.1)
        },
        Case("a confidence missing", ["/classes/windows/1/top/0/confidence"]) {
            setLabel(&$0, 1, 0, "confidence", nil)
        },
        Case("an empty label", ["/classes/windows/0/top/0/label"]) { setLabel(&$0, 0, 0, "label", "") },
        Case("a label of 129 characters", ["/classes/windows/0/top/0/label"]) {
            setLabel(&$0, 0, 0, "label", String(repeating: "a", count: 129))
        },
        Case("a label twice in a window", ["/classes/windows/1/top/1/label"]) {
            setLabel(&$0, 1, 1, "label", "Music")
        },
        Case("two faults, two pointers", ["/classes/vocabulary", "/classes/windows/2/top/0/confidence"]) {
            $0["vocabulary"] = "AudioSet"
            setLabel(&$0, 2, 0, "confidence", 2)
        },
    ]

    @Test("is refused with its pointer and writes nothing", arguments: cases)
    func refused(_ invalid: Case) async throws {
        try await withRouterApp { client, database in
            let response = try await IngestTests.post(client, Self.checkin(invalid.change))
            #expect(response.status == .unprocessableContent, "\(String(buffer: response.body).prefix(400))")
            #expect(response.headers[.contentType] == "application/problem+json")
            #expect(response.body.problemPointers == invalid.pointers, "\(String(buffer: response.body).prefix(600))")
            #expect(
                try await database.writtenRows() == ["venues": 0, "devices": 0, "checkins": 0, "aggregation_queue": 0])
        }
    }

    @Test("classes are stored compactly with their mapped classes; a resend matches, a changed label conflicts")
    func stored() async throws {
        try await withRouterApp { client, database in
            let body = Self.checkin()
            #expect(try await IngestTests.post(client, body).status == .created)
            let rows = try await database.query(
                """
                SELECT classes_classifier, classes_classifier_version, classes_vocabulary, class_window_offsets_s,
                       class_window_seconds, class_window_classes, class_top_counts, class_top_labels,
                       class_top_permille
                FROM checkins
                """)
            var found = 0
            for try await row in rows.decode(
                (String, String, String, [Int32], [Int16], [Int16], [Int16], [String], [Int16]).self)
            {
                found += 1
                #expect(row.0 == "yamnet" && row.1 == "1" && row.2 == "audioset")
                #expect(row.3 == [0, 10, 20] && row.4 == [10, 10, 10])
                // babble (speech 0.83; the dog ignored), bass-heavy music (music 0.7 + bass 0.3), quiet.
                #expect(row.5 == [0, 2, 4])
                #expect(row.6 == [2, 2, 1] && row.7 == ["Speech", "Dog", "Music", "Bass drum", "Silence"])
                #expect(row.8 == [830, 500, 700, 300, 900])
            }
            #expect(found == 1)

            #expect(try await IngestTests.post(client, body).status == .ok)
            var changed = body
            var classes = Self.classes
            Self.setLabel(&classes, 2, 0, "label", "Wind")
            changed["classes"] = classes
            #expect(try await IngestTests.post(client, changed).status == .conflict)
        }
    }

    @Test("a check-in without classes, or with null, stores none; v1 is untouched and carries none")
    func withoutClasses() async throws {
        try await withRouterApp { client, database in
            #expect(try await IngestTests.post(client, Fixture.checkin(count: 20)).status == .created)
            var null = Fixture.checkin(device: "another-phone", count: 20)
            null["classes"] = NSNull()
            #expect(try await IngestTests.post(client, null).status == .created)
            // v1, with a `classes` key it never had: ignored.
            let body = LegacyTests.checkinBody(
                venue: "v1-classes", deviceID: "0A1B2C3D-1111-2222-3333-444455556666",
                start: Date().addingTimeInterval(-900).rounded(), offsetMinutes: 660, zone: "GMT+11:00")
            let withClasses = body.replacingOccurrences(
                of: "\"checkin\" : {", with: "\"classes\" : \(FastParserTests.text(Self.classes)),\n  \"checkin\" : {")
            #expect(withClasses != body)
            let legacy = try await LegacyTests.post(client, "checkin/new", withClasses)
            #expect(legacy.status == .ok, "\(String(buffer: legacy.body).prefix(300))")
            #expect(try await database.count("checkins") == 3)
            #expect(try await database.count("checkins", where: "source = 'v1'") == 1)
            #expect(
                try await database.count(
                    "checkins", where: "classes_classifier IS NULL AND class_window_offsets_s IS NULL") == 3)
        }
    }

    // MARK: The grid

    /// A plain check-in (CheckinFixture's levels) of `count` seconds with one window of voices
    /// over its first `voices` seconds.
    static func phoneCheckin(venue: String, device: String, start: Date, count: Int = 40, voices: Int) -> JSONObject {
        var object = Fixture.checkin(venue: venue, device: device, count: count, start: start, average: -40)
        object["classes"] =
            [
                "classifier": ["name": "SoundAnalysis", "version": "1"], "vocabulary": "soundanalysis",
                "windows": [["offset": 0, "seconds": voices, "top": [["label": "speech", "confidence": 0.9]]]],
            ] as JSONObject
        return object
    }

    @Test("the v2 grid shows a character from phone classes alone, with its basis; v1 never does")
    func grid() async throws {
        try await EngineTestApp.run { client, _ in
            let start = SubmissionFixture.previousHourStart
            let hour = CheckinFixture(venue: "phones", device: "x", levelDBFS: 0, start: start).localHour
            // Two phones, 40 kept seconds each (Fixture levels: −40, −39.5, −39 dBFS repeating):
            // 30 + 40 seconds of speech, the rest in no window (uncertain, the phone's). 80 seconds:
            // babble 70/80 = 0.875 → 0.88, uncertain 10/80 = 0.125 → 0.13 (to 0.01, half away from zero).
            for (device, after, voices) in [("p1", 0.0, 30), ("p2", 300.0, 40)] {
                let response = try await IngestTests.post(
                    client,
                    Self.phoneCheckin(
                        venue: "phones", device: device, start: start.addingTimeInterval(after), voices: voices))
                #expect(response.status == .created, "\(String(buffer: response.body).prefix(400))")
            }
            let grid = try await eventually("the cell") {
                let grid = try await JSONProbe.get("/api/v2/venues/phones/loudness", from: client)
                let cell = grid.flatMap { JSONProbe.cell($0, day: hour.weekdayName, hour: hour.hour) }
                return cell?["checkins"] as? Int == 2 ? grid : nil
            }
            let cell = try #require(JSONProbe.cell(grid, day: hour.weekdayName, hour: hour.hour))
            let character = try #require(cell["character"] as? JSONObject)
            #expect(character["basis"] as? String == "phone classes")
            #expect(character["seconds"] as? Int == 80)
            #expect(character["lcMinusLa"] is NSNull)
            let shares = try #require(character["classes"] as? [String: Double])
            #expect(
                shares == [
                    "babble": 0.88, "music": 0, "bass_heavy_music": 0, "steady_noise": 0, "quiet": 0,
                    "uncertain": 0.13,
                ])
            for path in ["/api/v1/venue/phones", "/api/v1/venue/phones/volume"] {
                let body = try await client.execute(uri: path, method: .get) { String(buffer: $0.body) }
                for word in ["character", "basis", "phone classes", "babble"] {
                    #expect(!body.contains(word), "\(path): \(word)")
                }
            }
        }
    }
}
