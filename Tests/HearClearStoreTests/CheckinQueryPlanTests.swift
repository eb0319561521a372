import Foundation
import HearClearModel
import HearClearTestSupport
import Logging
import LoudnessCore
import PostgresNIO
import Testing

@testable import HearClearStore

/// The statements that read and write `checkins` keep their index plans now that it is partitioned
/// by month (migration 0020): each filled month is reached through its own copy of the index the
/// statement used before, never read whole, and a statement bounded in `started_at` reads only its
/// months. Checked on the plans PostgreSQL chooses for 90,000 check-ins in three months (analysed).
@Suite("Check-in statements keep their plans across monthly partitions")
struct CheckinQueryPlanTests {
    static let logger = Logger(label: "test")
    static let months = ["2026_06", "2026_07", "2026_08"]

    static func seed(_ client: PostgresClient) async throws {
        let oneSample = try SampleSeries(offsetsSeconds: [0], averageDBFS: [-30], peakDBFS: [-20]).column
            .readableBytesView.map { String(format: "%02x", $0) }.joined()
        let statements = [
            "SELECT checkins_partitions('2026-06-01T00:00:00Z', '2026-08-01T00:00:00Z')",
            """
            INSERT INTO venues (external_id, name, latitude, longitude)
            SELECT 'v' || i, 'Venue ' || i, 0, 0 FROM generate_series(1, 2000) i
            """,
            "INSERT INTO devices (client_id, model) SELECT 'device-' || i, 'Model' FROM generate_series(1, 5000) i",
            "INSERT INTO checkin_ids (id) SELECT md5(i::text)::uuid FROM generate_series(1, 90000) i",
            // One a minute from 1 June for 90,000 minutes (to mid-August); all cleaned but the last
            // 500, which the worker has yet to judge.
            """
            INSERT INTO checkins (id, venue_id, device_id, source, received_at, started_at, ended_at, sample_count,
                                  samples, utc_offsets_min, receipt_status, status, level_dbfs, valid_seconds,
                                  cleaned_at, judged_at)
            SELECT md5(i::text)::uuid, v.first + i % 2000, d.first + i % 5000, 'v2',
                   t + interval '6 minutes', t, t + interval '5 minutes', 1, '\\x\(oneSample)', '{0}', 'pending',
                   CASE WHEN i % 5 = 0 THEN 'outlier' ELSE 'included' END, -30, 1,
                   CASE WHEN i <= 89500 THEN t + interval '7 minutes' END,
                   CASE WHEN i <= 89500 THEN t + interval '7 minutes' END
            FROM generate_series(1, 90000) i,
                 LATERAL (SELECT timestamptz '2026-06-01T00:00:00Z' + make_interval(mins => i) AS t) s,
                 (SELECT min(id) AS first FROM venues) v, (SELECT min(id) AS first FROM devices) d
            """,
            "ANALYZE",
        ]
        for statement in statements {
            try await client.query(PostgresQuery(unsafeSQL: statement), logger: logger)
        }
    }

    @Test("ingest, a resend's lookup, a phone's access, judgement, its writes and the retention")
    func plans() async throws {
        try await withTestDatabase { client, _ in
            try await Self.seed(client)
            let filled = try await AdminQueryPlanTests.filledPartitions(client)
            #expect(Set(filled) == Set(Self.months.map { "checkins_\($0)" }))
            let one = try #require(
                try await client.query(
                    "SELECT id, venue_id, device_id FROM checkins WHERE started_at = '2026-07-15T20:00:00Z'"
                ).decode((UUID, Int64, Int64).self).first { _ in true })

            let july = CheckinPartitionTests.date("2026-07-15T20:00:00Z")
            // Ingest's overlap check reads the phone's last day through its index, in July only.
            // Its statement takes its rows as arrays, so the month is known when it runs, not when
            // it is planned: the plan is the one run (inside a transaction rolled back), where the
            // other months are pruned at run time ("never executed").
            var submission = SubmissionFixture.submission(
                venue: "v1", timezone: "UTC", device: "device-1", levelDBFS: -30,
                start: july)
            submission.id = UUID()
            let venue = Venue(
                id: one.1, externalID: "v1", name: "v1", latitude: 0, longitude: 0, timezone: "UTC", createdAt: july,
                updatedAt: july)
            let row = try IngestRow(
                submission, venue: venue, deviceID: one.2,
                verdict: IntakeRule.Verdict(status: .pending, reasons: [], distanceMetres: nil))
            let ingest = try await Self.executedPlan(IngestStatement.query([row]).query, client)
            #expect(ingest.contains("checkins_2026_07_device_id_started_at_idx"), "\(ingest)")
            for month in ["checkins_2026_06", "checkins_2026_08"] {
                let lines = ingest.split(separator: "\n").filter { $0.contains(month) }
                #expect(lines.allSatisfy { $0.contains("never executed") }, "\(ingest)")
            }
            #expect(!AdminQueryPlanTests.scansWhole(ingest, "checkins", filled: filled), "\(ingest)")

            let judgements = [
                (
                    one.1,
                    AggregationResult.Judgement(
                        checkinID: one.0, startedAt: july, status: .included, reasons: [], levelDBFS: -30,
                        validSeconds: 300, newlyCleaned: true)
                )
            ]
            // The new check-ins the worker reads by their queued keys come from their month only.
            let newOnes = try await AdminQueryPlanTests.plan(
                AggregationRepository.checkinsQuery(
                    venueIDs: [one.1], only: [AggregationQueue.QueuedCheckin(id: one.0, startedAt: july)]), client)
            #expect(!newOnes.contains("checkins_2026_06") && !newOnes.contains("checkins_2026_08"), "\(newOnes)")
            // The worker's update of a July check-in reads July's partition only, by an index.
            let judging = try await AdminQueryPlanTests.plan(AggregationRepository.judgementsQuery(judgements), client)
            #expect(judging.contains("Index Scan using checkins_2026_07_"), "\(judging)")
            #expect(!judging.contains("checkins_2026_06") && !judging.contains("checkins_2026_08"), "\(judging)")

            let queries: [(String, PostgresQuery, String)] = [
                ("a resend's lookup", "\(unescaped: CheckinRepository.storedColumns) WHERE c.id = \(one.0)", "_pkey"),
                (
                    "a phone's check-ins",
                    "\(unescaped: CheckinRepository.storedColumns) WHERE c.device_id = \(one.2) ORDER BY c.started_at, c.id",
                    "device_id_started_at_idx"
                ),
                (
                    "new check-ins to judge",
                    AggregationRepository.checkinsQuery(
                        venueIDs: [one.1], only: [AggregationQueue.QueuedCheckin(id: one.0, startedAt: july)]),
                    "Index Scan using checkins_2026_07_"
                ),
                (
                    "a venue's check-ins", AggregationRepository.checkinsQuery(venueIDs: [one.1], only: nil),
                    "venue_id_started_at_idx"
                ),
                ("judgements", AggregationRepository.judgementsQuery(judgements), "Index Scan using checkins_2026_07_"),
                (
                    "retention",
                    SampleRetention.stripQuery(
                        receivedBefore: CheckinPartitionTests.date("2026-07-01T00:00:00Z"), batch: 1_000),
                    "received_at_idx"
                ),
            ]
            for (name, query, index) in queries {
                let plan = try await AdminQueryPlanTests.plan(query, client)
                #expect(!AdminQueryPlanTests.scansWhole(plan, "checkins", filled: filled), "\(name): \(plan)")
                #expect(plan.contains(index), "\(name): \(plan)")
            }
        }
    }

    /// The plan `query` ran with (`EXPLAIN ANALYZE`), its writes rolled back.
    static func executedPlan(_ query: PostgresQuery, _ client: PostgresClient) async throws -> String {
        try await client.withConnection { connection in
            try await connection.query("BEGIN", logger: logger)
            let explain = PostgresQuery(
                unsafeSQL: "EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF) " + query.sql, binds: query.binds)
            var lines: [String] = []
            for try await line in try await connection.query(explain, logger: logger).decode(String.self) {
                lines.append(line)
            }
            try await connection.query("ROLLBACK", logger: logger)
            return lines.joined(separator: "\n")
        }
    }

    /// The judgement's update (and the retention's) can be HOT, which writes no index entry and
    /// leaves no dead one behind (migration 0023): no index of `checkins` or of its months names,
    /// in its columns or its predicate, a column those updates set. Read from the catalogue.
    @Test("no index names a column the judgement or the retention sets")
    func updatesCanBeHOT() async throws {
        try await withTestDatabase { client, _ in
            try await client.query("SELECT checkins_partitions(now(), now() + interval '1 month')", logger: Self.logger)
            let set = [
                "status", "reasons", "level_dbfs", "valid_seconds", "judged_at", "cleaned_at", "clean_exclusion",
                "samples", "samples_removed_at", "class_window_offsets_s", "class_window_seconds",
                "class_window_classes", "class_top_counts", "class_top_labels", "class_top_permille",
            ]
            let rows = try await client.query(
                """
                SELECT i.indexrelid::regclass::text, a.attname
                FROM pg_index i
                JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum > 0
                WHERE i.indrelid IN (SELECT relid FROM pg_partition_tree('checkins'))
                  AND (a.attnum = ANY(i.indkey::int2[])
                       OR pg_get_expr(i.indpred, i.indrelid) ~ ('\\m' || a.attname || '\\M')
                       OR pg_get_expr(i.indexprs, i.indrelid) ~ ('\\m' || a.attname || '\\M'))
                """,
                logger: Self.logger)
            var named: [String] = []
            var indexes = 0
            for try await (index, column) in rows.decode((String, String).self) {
                indexes += 1
                if set.contains(column) { named.append("\(index): \(column)") }
            }
            #expect(indexes >= 8, "the catalogue query found the indexes' columns")
            #expect(named.isEmpty, "\(named)")
        }
    }
}
