import Foundation
import HearClearModel
import HearClearStore
import HearClearTestSupport
import LoudnessCore
import PostgresNIO
import Testing

@testable import HearClearEngine

/// Check-ins with the phone's own classes, stored and judged against the real database: the
/// classes round trip, a piece's seconds take the phone's class where it is sure, and a cell
/// says what its character rests on (docs/ARCHITECTURE.md, "The phone's own classes"). The
/// check-ins A (steady spectra, 37 kept seconds), B (bass-heavy spectra, 40) and C (no spectra,
/// 40) are ``SoundCharacterAggregationTests``'s, all in Wednesday 21:00 in Sydney.
@Suite("The phone's own classes: storage and cells")
struct PhoneClassesAggregationTests {
    let logger = engineTestLogger
    typealias Fixtures = SoundCharacterAggregationTests

    static func window(_ offset: Int32, _ seconds: Int16, _ top: [(String, Double)]) -> PhoneClasses.Window {
        PhoneClasses.Window(
            offsetSeconds: offset, seconds: seconds, labels: top.map(\.0),
            confidencesPermille: top.map { Int16(($0.1 * 1000).rounded()) }, vocabulary: .audioSet)
    }

    static func yamnet(_ windows: [PhoneClasses.Window]) -> PhoneClasses {
        PhoneClasses(classifierName: "yamnet", classifierVersion: "1", vocabulary: .audioSet, windows: windows)
    }

    /// C with its phone's classes: 0–9 babble, 10–19 babble (0.6 of voices against 0.2 of music),
    /// 20–29 bass-heavy music (music 0.7 + bass drum 0.3; the bass 0.3 ≥ 0.2), 30–39 uncertain
    /// (wind 0.2 < 0.3).
    static let c: CheckinSubmission = {
        var c = Fixtures.c
        c.classes = yamnet([
            window(0, 10, [("Speech", 0.8)]),
            window(10, 10, [("Speech", 0.6), ("Music", 0.2)]),
            window(20, 10, [("Music", 0.7), ("Bass drum", 0.3)]),
            window(30, 10, [("Wind", 0.2), ("Dog", 0.9)]),
        ])
        return c
    }()

    /// D: another phone without spectra, C's levels 400 s later; one window, 0–19 babble (crowd
    /// 0.5 + hubbub 0.3), its last 20 seconds in no window.
    static let d: CheckinSubmission = {
        var d = Fixtures.submission(
            device: "d", after: 1_200, averages: (0..<40).map { -44 + Fixtures.wobble[$0 % 7] }, lceq: nil,
            bands: nil)
        d.classes = yamnet([window(0, 20, [("Crowd", 0.5), ("Hubbub, speech noise, speech babble", 0.3)])])
        return d
    }()

    /// A with its phone's classes: 0–9 babble (speech 0.9); 10–19 uncertain (music 0.25); 20–29
    /// bass-heavy music (music 0.6, bass drum 0.4); 30–39 in no window.
    static let a: CheckinSubmission = {
        var a = Fixtures.a
        a.classes = yamnet([
            window(0, 10, [("Speech", 0.9)]),
            window(10, 10, [("Music", 0.25)]),
            window(20, 10, [("Music", 0.6), ("Bass drum", 0.4)]),
        ])
        return a
    }()

    func store(_ client: PostgresClient, _ submissions: [CheckinSubmission]) async throws -> Int64 {
        try await client.query(
            "INSERT INTO device_model_offsets (model, offset_db, source) VALUES ('Quiet Phone', 2, 'override')")
        let checkins = CheckinRepository(client: client, logger: logger)
        for submission in submissions {
            guard case .created = try await checkins.ingest(submission, maxDistanceMetres: 250) else {
                throw StoreError.unexpected("not stored")
            }
        }
        let venue = try #require(
            try await AggregationQueue(client: client, logger: logger).venueKey(externalID: "character"))
        try await Aggregator(client: client, logger: logger).recompute(venueID: venue)
        return venue
    }

    @Test("the classes round trip; a resend is the same check-in only with the same classes")
    func roundTrip() async throws {
        try await withTestDatabase { client, _ in
            _ = try await store(client, [Self.c, Fixtures.b])
            let repository = CheckinRepository(client: client, logger: logger)
            let stored = try #require(try await repository.find(id: Self.c.id))
            #expect(stored.classes == Self.c.classes)
            #expect(stored.classes?.windows.map(\.soundClass) == [.babble, .babble, .bassHeavyMusic, .uncertain])
            #expect(stored.classes?.windows[3].labels == ["Wind", "Dog"], "an unknown label is kept")
            #expect(try await repository.find(id: Fixtures.b.id)?.classes == nil)
            // Compact: labels text[], confidences per mille, classes as their index.
            let rows = try await client.query(
                """
                SELECT classes_classifier, classes_classifier_version, classes_vocabulary, class_window_offsets_s,
                       class_window_seconds, class_window_classes, class_top_counts, class_top_labels,
                       class_top_permille
                FROM checkins WHERE id = \(Self.c.id)
                """)
            for try await row in rows.decode(
                (String, String, String, [Int32], [Int16], [Int16], [Int16], [String], [Int16]).self)
            {
                #expect(row.0 == "yamnet" && row.1 == "1" && row.2 == "audioset")
                #expect(row.3 == [0, 10, 20, 30] && row.4 == [10, 10, 10, 10] && row.5 == [0, 0, 2, 5])
                #expect(row.6 == [1, 2, 2, 2] && row.7.count == 7 && row.8 == [800, 600, 200, 700, 300, 200, 900])
            }

            #expect(try await repository.ingest(Self.c, maxDistanceMetres: 250) == .duplicate(stored.receipt))
            var changed = Self.c
            changed.classes?.windows[0].confidencesPermille[0] = 801
            #expect(try await repository.ingest(changed, maxDistanceMetres: 250) == .conflict(id: Self.c.id))
            changed = Self.c
            changed.classes = nil
            #expect(try await repository.ingest(changed, maxDistanceMetres: 250) == .conflict(id: Self.c.id))
        }
    }

    @Test("the database refuses classes on v1, windows that do not line up, and a class out of range")
    func constraints() async throws {
        try await withTestDatabase { client, _ in
            let repository = CheckinRepository(client: client, logger: logger)
            var legacy = Self.c
            legacy.source = .v1
            await #expect(throws: (any Error).self) { try await repository.ingest(legacy, maxDistanceMetres: 250) }
            var tooMany = Self.c
            tooMany.classes?.windows = (0..<41).map { Self.window(Int32($0), 1, [("Speech", 1)]) }
            await #expect(throws: (any Error).self, "more windows than samples") {
                try await repository.ingest(tooMany, maxDistanceMetres: 250)
            }
            #expect(try await client.count("checkins") == 0)
            _ = try await repository.ingest(Self.c, maxDistanceMetres: 250)
            await #expect(throws: (any Error).self) {
                try await client.query("UPDATE checkins SET class_window_classes[1] = 6")
            }
            await #expect(throws: (any Error).self) {
                try await client.query("UPDATE checkins SET class_top_permille[1] = 1001")
            }
            await #expect(throws: (any Error).self) {
                try await client.query("UPDATE checkins SET classes_vocabulary = 'yamnet'")
            }
        }
    }

    @Test("a cell from phone classes only, by hand: basis phone classes")
    func phoneOnly() async throws {
        try await withTestDatabase { client, _ in
            let venue = try await store(client, [Self.c, Self.d])
            // C: 40 kept seconds, 20 babble, 10 bass-heavy, 10 uncertain (the wind under 0.3), all
            // the phone's. D: 20 babble, 20 uncertain (no window: the phone is the only source).
            let rows = try await client.query(
                """
                SELECT h.checkin_id, h.valid_seconds, h.character_class_seconds, h.character_phone_seconds
                FROM checkin_hours h
                """)
            var pieces: [UUID: (Int32, [Int16], Int32?)] = [:]
            for try await (id, valid, classes, phone) in rows.decode((UUID, Int32, [Int16], Int32?).self) {
                pieces[id] = (valid, classes, phone)
            }
            #expect(pieces[Self.c.id]?.0 == 40 && pieces[Self.c.id]?.1 == [20, 0, 10, 0, 0, 10])
            #expect(pieces[Self.c.id]?.2 == 40)
            #expect(pieces[Self.d.id]?.0 == 40 && pieces[Self.d.id]?.1 == [20, 0, 0, 0, 0, 20])
            #expect(pieces[Self.d.id]?.2 == 40)

            let cells = try await SoundCharacterAggregationTests.cells(client, venue)
            let character = try #require(cells.first?.character)
            #expect(character.seconds == 80 && character.checkins == 2)
            #expect(character.classSeconds == [40, 0, 10, 0, 0, 30])
            #expect(character.phoneSeconds == 80 && character.basis == .phoneClasses)
            #expect(character.lcMinusLaDB == nil, "no LCeq")
        }
    }

    @Test("a cell from the spectra rules only: basis spectra rules, as before")
    func rulesOnly() async throws {
        try await withTestDatabase { client, _ in
            let venue = try await store(client, [Fixtures.a, Fixtures.b, Fixtures.c])
            let character = try #require(try await SoundCharacterAggregationTests.cells(client, venue).first?.character)
            #expect(character.classSeconds == [0, 0, 40, 37, 0, 0])
            #expect(character.phoneSeconds == 0 && character.basis == .spectraRules)
            // Stored as 0 (NULL only without a character, and in rows of before migration 0016).
            #expect(try await client.count("checkin_hours", where: "character_phone_seconds = 0") == 2)
            #expect(try await client.count("checkin_hours", where: "character_phone_seconds IS NULL") == 1, "C's")
            #expect(try await client.count("loudness_cells", where: "character_phone_seconds = 0") == 1)
        }
    }

    @Test("a cell from both, by hand: the phone's sure classes win their seconds, the rules the rest")
    func both() async throws {
        try await withTestDatabase { client, _ in
            let venue = try await store(client, [Self.a, Fixtures.b])
            // A keeps 0–19 and 23–39 (its bang at 20 and the two after removed), 37 seconds, all
            // steady by the rules. The phone: 0–9 babble (10 s, the phone's); 10–19 unsure, the
            // rules' steady (10); 20–29 bass-heavy for the 7 kept (23–29, the phone's); 30–39 in
            // no window, the rules' steady (10). So 10 babble, 7 bass-heavy, 20 steady; 17 the
            // phone's. B: 40 bass-heavy by the rules.
            let rows = try await client.query(
                "SELECT character_class_seconds, character_phone_seconds FROM checkin_hours WHERE checkin_id = \(Self.a.id)"
            )
            for try await (classes, phone) in rows.decode(([Int16], Int32?).self) {
                #expect(classes == [10, 0, 7, 20, 0, 0] && phone == 17)
            }
            let cells = try await SoundCharacterAggregationTests.cells(client, venue)
            let character = try #require(cells.first?.character)
            #expect(character.seconds == 77 && character.classSeconds == [10, 0, 47, 20, 0, 0])
            #expect(character.phoneSeconds == 17 && character.basis == .both)
            // LC − LA still from the spectra: statistics.median([3.0] * 37 + [12 + (i % 3) * 0.5 for i in range(40)]).
            #expect(character.lcMinusLaDB == 12)

            // A full read (hours from checkin_hours) judges the same.
            try await Aggregator(client: client, logger: logger, memoryCapacity: 0).recompute(venueID: venue)
            #expect(try await SoundCharacterAggregationTests.cells(client, venue) == cells)
        }
    }

    @Test("erasing a device removes its classes; the retention removes the windows and keeps the piece")
    func erasureAndRetention() async throws {
        try await withTestDatabase { client, _ in
            let venue = try await store(client, [Self.c, Self.d])
            let before = try await SoundCharacterAggregationTests.cells(client, venue)

            let stripped = try await SampleRetention(client: client, logger: logger)
                .strip(receivedBefore: Date().addingTimeInterval(60))
            #expect(stripped.checkins == 2)
            #expect(try await client.count("checkins", where: "class_window_offsets_s IS NOT NULL") == 0)
            #expect(try await client.count("checkins", where: "classes_classifier = 'yamnet'") == 2)
            try await Aggregator(client: client, logger: logger, memoryCapacity: 0).recompute(venueID: venue)
            #expect(try await SoundCharacterAggregationTests.cells(client, venue) == before, "the pieces stand")

            let erased = try await DeviceErasure(client: client, logger: logger).erase(keyedID: Self.d.deviceID)
            #expect(erased?.checkins == 1)
            #expect(try await client.count("checkins", where: "classes_classifier IS NOT NULL") == 1)
            #expect(try await client.count("checkins", where: "id = '\(Self.d.id.uuidString)'") == 0)
        }
    }
}
