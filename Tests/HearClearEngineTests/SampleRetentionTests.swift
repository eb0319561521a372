import Foundation
import HearClearModel
import HearClearStore
import HearClearTestSupport
import PostgresNIO
import Testing

@testable import HearClearEngine

/// `--raw-retention-days`: past it a check-in loses its per-second samples and keeps what its
/// judgement rests on (migration 0015, ``SampleRetention``).
@Suite("Sample retention")
struct SampleRetentionTests {
    /// The cells, without their write times; the check-ins' hours (the stored cleaning, with the
    /// sound character); the check-ins' judgements.
    static func snapshot(_ client: PostgresClient) async throws -> [[String]] {
        [
            try await client.texts(
                "SELECT (to_jsonb(l) - 'updated_at' - 'computed_at')::text FROM loudness_cells l"
            ).sorted(),
            try await client.texts("SELECT to_jsonb(h)::text FROM checkin_hours h").sorted(),
            try await client.texts(
                """
                SELECT jsonb_build_array(id, status, reasons, level_dbfs, valid_seconds, sample_count, started_at,
                                         ended_at, clean_exclusion)::text FROM checkins
                """
            ).sorted(),
        ]
    }

    static func judgeAll(_ client: PostgresClient) async throws {
        let worker = Aggregator(client: client, logger: engineTestLogger)
        while !(try await worker.processNext(limit: 8).isEmpty) {}
    }

    @Test(
        "past the retention a check-in loses its samples and keeps its judgement, hours and character; the cells stay, after a full recompute too"
    )
    func samplesRemoved() async throws {
        try await withTestDatabase { client, _ in
            let repository = CheckinRepository(client: client, logger: engineTestLogger)
            var strippedBytes = 0
            for venue in 0..<3 {
                for device in 0..<3 {
                    var submission = SubmissionFixture.submission(
                        venue: "keep\(venue)", timezone: "UTC", device: "device-\(venue)-\(device)",
                        levelDBFS: -40 - Double(venue) - Double(device) * 0.5,
                        start: SubmissionFixture.previousHourStart, seconds: 60)
                    // LCeq 4 dB above the average, and two third-octave bands: a sound character.
                    submission.lceqDdB = submission.averageDBFS.map { Int16((($0 + 4) * 10).rounded()) }
                    submission.bandIndexes = [10, 16]
                    submission.bandsDdB = submission.averageDBFS.flatMap {
                        [Int16((($0 - 3) * 10).rounded()), Int16((($0 - 6) * 10).rounded())]
                    }
                    _ = try await repository.ingest(submission, maxDistanceMetres: 250)
                    if venue < 2 {
                        // The samples column as stored (migration 0017): its bytes and a varlena header
                        // (1 byte up to 126 bytes, else 4).
                        let bytes = try SampleSeries(submission).column.readableBytes
                        strippedBytes += bytes + (bytes > 126 ? 4 : 1)
                    }
                }
            }
            try await Self.judgeAll(client)
            let before = try await Self.snapshot(client)
            #expect(before[0].count == 3 && before[1].count == 9)
            #expect(
                before[1].allSatisfy {
                    $0.contains("\"character_class_seconds\": [") && $0.contains("\"valid_seconds\": 60")
                },
                "a character in every check-in's hour")

            // Two venues' check-ins were received 40 days ago; the third's are recent.
            try await client.query(
                "UPDATE checkins SET received_at = now() - interval '40 days' WHERE venue_id IN (SELECT id FROM venues WHERE external_id IN ('keep0', 'keep1'))",
                logger: engineTestLogger)
            let pass = try await SampleRetention(client: client, logger: engineTestLogger).strip(
                receivedBefore: Date().addingTimeInterval(-30 * 86_400), batch: 4)
            #expect(pass.checkins == 6)
            // What the six stripped check-ins' samples took (no class windows here).
            #expect(pass.bytes == strippedBytes, "\(pass.bytes) bytes, \(strippedBytes) expected")
            #expect(
                try await client.count(
                    "checkins",
                    where: """
                        samples_removed_at IS NOT NULL AND samples IS NULL AND sample_count = 60
                        """) == 6)
            #expect(
                try await client.count(
                    "checkins", where: "samples_removed_at IS NULL AND samples IS NOT NULL") == 3)
            // Read back, a stripped check-in still says how many samples it had and when it ended.
            let strippedID = try #require(
                try await client.query(
                    "SELECT id FROM checkins WHERE samples_removed_at IS NOT NULL LIMIT 1", logger: engineTestLogger
                ).decode(UUID.self).first { _ in true })
            let stripped = try #require(try await repository.find(id: strippedID))
            #expect(stripped.samplesRemovedAt != nil && stripped.averageDBFS.isEmpty)
            #expect(stripped.receipt.sampleCount == 60)
            #expect(stripped.endedAt == stripped.startedAt.addingTimeInterval(59))
            let again = try await SampleRetention(client: client, logger: engineTestLogger).strip(
                receivedBefore: Date().addingTimeInterval(-30 * 86_400))
            #expect(again.checkins == 0, "once")
            #expect(try await Self.snapshot(client) == before, "judgements, hours and cells untouched")

            // A full recompute (every cleaning forgotten, every venue judged again): the stripped
            // check-ins keep their stored cleaning, the recent ones are cleaned again from their
            // samples, and every cell comes out the same.
            let queue = AggregationQueue(client: client, logger: engineTestLogger)
            try await queue.forgetCleaning()
            #expect(try await client.count("checkins", where: "cleaned_at IS NULL") == 3)
            try await queue.enqueueAll()
            try await Self.judgeAll(client)
            #expect(try await client.count("checkins", where: "cleaned_at IS NULL") == 0)
            #expect(try await Self.snapshot(client) == before)
        }
    }

    @Test("the setting is off by default")
    func setting() throws {
        #expect(EngineConfiguration().rawRetentionDays == nil)
        #expect(EngineSettings.rawRetentionDays.defaultValue == "off")
    }
}
