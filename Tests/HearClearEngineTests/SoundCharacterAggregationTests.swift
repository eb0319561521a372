import Foundation
import HearClearModel
import HearClearStore
import HearClearTestSupport
import LoudnessCore
import PostgresNIO
import Testing

@testable import HearClearEngine

/// Check-ins that carry LCeq and bands, stored and judged against the real database: their arrays
/// round trip, each piece's character is stored with its cleaning, and a cell's character is
/// pooled from the kept seconds of its counted check-ins (docs/ARCHITECTURE.md, "Sound character").
@Suite("Sound character: storage and cells")
struct SoundCharacterAggregationTests {
    let logger = engineTestLogger
    /// 2026-11-18 10:00:00 UTC, a Wednesday: 21:00 in Sydney (+11:00).
    static let start = Date(timeIntervalSince1970: 1_794_996_000)
    static let wobble = [0, 0.4, -0.3, 0.2, -0.5, 0.1, -0.2]
    /// Bands carried: 100, 125, 160 Hz; 500 Hz, 1 kHz, 2 kHz.
    static let bands: [Int16] = [3, 4, 5, 10, 13, 16]

    static func submission(
        device: String, model: String? = nil, after seconds: Double, averages: [Double], lceq: [Double]?,
        bands: [[Double]]?
    ) -> CheckinSubmission {
        var submission = SubmissionFixture.submission(
            venue: "character", timezone: "Australia/Sydney", device: device, levelDBFS: 0,
            start: start.addingTimeInterval(seconds), seconds: averages.count)
        submission.deviceModel = model
        submission.averageDBFS = averages.map { Float($0) }
        submission.peakDBFS = averages.map { Float($0 + 10) }
        submission.lceqDdB = lceq?.map(SpectralSamples.decidecibels)
        submission.bandIndexes = bands == nil ? nil : Self.bands
        submission.bandsDdB = bands?.flatMap { $0.map(SpectralSamples.decidecibels) }
        return submission
    }

    /// A: steady (a fixed spectral shape), LCeq 3 dB over, with a bang at second 20 (all bass,
    /// LC − LA 40 dB) that cleaning removes with the two seconds after it.
    static let a: CheckinSubmission = {
        var averages = (0..<40).map { -45 + wobble[$0 % 7] }
        averages[20] = -10
        var lceq = averages.map { $0 + 3 }
        lceq[20] = 30
        var bands = averages.map { average in [-5.0, -6, -12, -13, -14, -20].map { average + $0 } }
        bands[20] = [10, 10, 10, -100, -100, -100]
        return submission(device: "a", after: 0, averages: averages, lceq: lceq, bands: bands)
    }()

    /// B: a model 2 dB quiet, rising 0.1 dB a second from −49 dBFS; bass-heavy: 100 Hz jumps by 6 dB
    /// every other second, the low bands 9 dB over 500 Hz–4 kHz, LC − LA 12 to 13 dB.
    static let b: CheckinSubmission = {
        let averages = (0..<40).map { -49 + Double($0) * 0.1 }
        let lceq = (0..<40).map { averages[$0] + 12 + Double($0 % 3) * 0.5 }
        let bands = (0..<40).map { i in
            [i.isMultiple(of: 2) ? 0 : -6, -1, -2, -10, -11, -12].map { averages[i] + $0 }
        }
        return submission(device: "b", model: "Quiet Phone", after: 400, averages: averages, lceq: lceq, bands: bands)
    }()

    /// C: no LCeq, no bands: in the cell's level, not in its character.
    static let c: CheckinSubmission = {
        submission(device: "c", after: 800, averages: (0..<40).map { -44 + wobble[$0 % 7] }, lceq: nil, bands: nil)
    }()

    func store(_ client: PostgresClient) async throws -> Int64 {
        try await client.query(
            "INSERT INTO device_model_offsets (model, offset_db, source) VALUES ('Quiet Phone', 2, 'override')")
        let checkins = CheckinRepository(client: client, logger: logger)
        for submission in [Self.a, Self.b, Self.c] {
            guard case .created = try await checkins.ingest(submission, maxDistanceMetres: 250) else {
                throw StoreError.unexpected("not stored")
            }
        }
        return try #require(
            try await AggregationQueue(client: client, logger: logger).venueKey(externalID: "character"))
    }

    @Test("LCeq and bands round trip; a resend is the same check-in only with the same arrays")
    func roundTrip() async throws {
        try await withTestDatabase { client, _ in
            _ = try await store(client)
            let repository = CheckinRepository(client: client, logger: logger)
            let a = Self.a
            let stored = try #require(try await repository.find(id: a.id))
            #expect(stored.lceqDdB == a.lceqDdB && stored.lceqDdB?.count == 40)
            #expect(stored.bandIndexes == Self.bands)
            #expect(stored.bandsDdB == a.bandsDdB && stored.bandsDdB?.count == 240)
            #expect(stored.bandsDdB?[20 * 6..<21 * 6] == [100, 100, 100, -1000, -1000, -1000])
            let c = try #require(try await repository.find(id: Self.c.id))
            #expect(c.lceqDdB == nil && c.bandIndexes == nil && c.bandsDdB == nil)

            #expect(try await repository.ingest(a, maxDistanceMetres: 250) == .duplicate(stored.receipt))
            var changed = a
            changed.bandsDdB![7] += 1
            #expect(try await repository.ingest(changed, maxDistanceMetres: 250) == .conflict(id: a.id))
            changed = a
            changed.lceqDdB = nil
            #expect(try await repository.ingest(changed, maxDistanceMetres: 250) == .conflict(id: a.id))
            changed = a
            changed.bandIndexes = [3, 4, 5, 10, 13, 17]
            #expect(try await repository.ingest(changed, maxDistanceMetres: 250) == .conflict(id: a.id))
        }
    }

    @Test("the database refuses arrays that do not line up, and spectra on a v1 check-in")
    func constraints() async throws {
        try await withTestDatabase { client, _ in
            let repository = CheckinRepository(client: client, logger: logger)
            var short = Self.a
            short.lceqDdB?.removeLast()
            await #expect(throws: (any Error).self) { try await repository.ingest(short, maxDistanceMetres: 250) }
            var ragged = Self.a
            ragged.bandsDdB?.removeLast()
            await #expect(throws: (any Error).self) { try await repository.ingest(ragged, maxDistanceMetres: 250) }
            var legacy = Self.a
            legacy.source = .v1
            await #expect(throws: (any Error).self) { try await repository.ingest(legacy, maxDistanceMetres: 250) }
            let stored = try await client.count("checkins")
            #expect(stored == 0)
        }
    }

    @Test("a cell's character, by hand: the kept seconds of its counted check-ins that carry it")
    func cellCharacter() async throws {
        try await withTestDatabase { client, _ in
            let venue = try await store(client)
            try await Aggregator(client: client, logger: logger).recompute(venueID: venue)

            // A's piece: 37 kept seconds (the bang and the two after it removed), all steady.
            let rows = try await client.query(
                """
                SELECT h.character_class_seconds, h.character_la_ddb, h.character_lc_minus_la_ddb, h.valid_seconds
                FROM checkin_hours h WHERE h.checkin_id = \(Self.a.id)
                """)
            for try await (classes, levels, differences, valid) in rows.decode(([Int16], [Int16], [Int16], Int32).self)
            {
                #expect(valid == 37)
                #expect(classes == [0, 0, 0, 37, 0, 0])
                #expect(levels.count == 37 && levels == levels.sorted() && !levels.contains(-100))
                #expect(differences == Array(repeating: 30, count: 37))
            }
            #expect(try await client.count("checkin_hours", where: "character_class_seconds IS NULL") == 1, "C's")

            let cells = try await LoudnessRepository(client: client, logger: logger).cells(venueID: venue)
            let cell = try #require(cells.first)
            #expect(cells.count == 1 && cell.weekday == 3 && cell.hour == 21)
            #expect(cell.checkins == 3, "C counts in the level")
            let character = try #require(cell.character)
            #expect(character.checkins == 2 && character.seconds == 77)
            #expect(character.classSeconds == [0, 0, 40, 37, 0, 0], "B bass-heavy in every window, A steady")
            // python3: w = [0, 0.4, -0.3, 0.2, -0.5, 0.1, -0.2]
            //   a = [round(-45 + w[i % 7], 1) for i in range(40) if i not in (20, 21, 22)]
            //   b = [round(-49 + i * 0.1, 1) + 2 for i in range(40)]   (B's model: +2 dB)
            //   statistics.quantiles(a + b, n=10, method='inclusive')[0] == -46.24
            #expect(abs(character.la90DBFS - -46.24) < 1e-4)
            // python3: statistics.median([3.0] * 37 + [12 + (i % 3) * 0.5 for i in range(40)]) == 12.0
            #expect(character.lcMinusLaDB == 12)

            // A full read (hours from checkin_hours, no samples) judges the same character.
            try await Aggregator(client: client, logger: logger, memoryCapacity: 0).recompute(venueID: venue)
            #expect(try await Self.cells(client, venue) == Self.withoutTimes(cells))
        }
    }

    static func cells(_ client: PostgresClient, _ venueID: Int64) async throws -> [StoredCell] {
        withoutTimes(try await LoudnessRepository(client: client, logger: engineTestLogger).cells(venueID: venueID))
    }

    static func withoutTimes(_ cells: [StoredCell]) -> [StoredCell] {
        cells.map { cell in
            var cell = cell
            cell.updatedAt = .distantPast
            return cell
        }
    }

    @Test("judged from memory as a check-in joins, the character equals a full read's")
    func fromMemory() async throws {
        try await withTestDatabase { client, _ in
            try await client.query(
                "INSERT INTO device_model_offsets (model, offset_db, source) VALUES ('Quiet Phone', 2, 'override')")
            let checkins = CheckinRepository(client: client, logger: logger)
            let worker = Aggregator(client: client, logger: logger)
            for submission in [Self.a, Self.c] { _ = try await checkins.ingest(submission, maxDistanceMetres: 250) }
            _ = try await worker.processNext(limit: 8)
            let venue = try #require(
                try await AggregationQueue(client: client, logger: logger).venueKey(externalID: "character"))
            #expect(try await Self.cells(client, venue).first?.character == nil, "one check-in with the data")

            _ = try await checkins.ingest(Self.b, maxDistanceMetres: 250)
            _ = try await worker.processNext(limit: 8)
            #expect(worker.memorySize.checkins == 3)
            let remembered = try await Self.cells(client, venue)
            #expect(remembered.first?.character?.seconds == 77)

            try await Aggregator(client: client, logger: logger, memoryCapacity: 0).recompute(venueID: venue)
            #expect(try await Self.cells(client, venue) == remembered)
        }
    }

    @Test("a cell of one check-in with the data, or under 60 seconds, gets none")
    func notEnough() async throws {
        try await withTestDatabase { client, _ in
            let checkins = CheckinRepository(client: client, logger: logger)
            var b = Self.b
            b.deviceModel = nil
            for submission in [Self.a, b] {
                var short = submission
                // 25 seconds each (A's bang at 20 leaves 20): under 60 in all.
                let seconds = 25
                short.offsetsSeconds.removeLast(40 - seconds)
                short.averageDBFS.removeLast(40 - seconds)
                short.peakDBFS.removeLast(40 - seconds)
                short.lceqDdB?.removeLast(40 - seconds)
                short.bandsDdB?.removeLast((40 - seconds) * 6)
                _ = try await checkins.ingest(short, maxDistanceMetres: 250)
            }
            _ = try await checkins.ingest(Self.c, maxDistanceMetres: 250)
            let venue = try #require(
                try await AggregationQueue(client: client, logger: logger).venueKey(externalID: "character"))
            try await Aggregator(client: client, logger: logger).recompute(venueID: venue)
            let cells = try await LoudnessRepository(client: client, logger: logger).cells(venueID: venue)
            #expect(cells.count == 1 && cells[0].character == nil)
            #expect(try await client.count("loudness_cells", where: "character_seconds IS NULL") == 1)
        }
    }
}
