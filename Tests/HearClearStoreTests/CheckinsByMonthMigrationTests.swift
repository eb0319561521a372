import Foundation
import HearClearModel
import HearClearTestSupport
import Logging
import PostgresNIO
import Testing

@testable import HearClearStore

/// Migrations 0020–0022 move the check-ins into a table partitioned by month: copied while an old
/// server goes on writing, what it wrote meanwhile copied again under 0021's lock, nothing lost.
@Suite("Check-ins moved into their months by migration")
struct CheckinsByMonthMigrationTests {
    let logger = Logger(label: "test")

    /// What a check-in's row says that the move must keep.
    struct Row: Hashable {
        var id: UUID
        var startedAt: Date
        var status: String
        var samples: [UInt8]
    }

    func rows(_ client: PostgresClient) async throws -> Set<Row> {
        var rows = Set<Row>()
        for try await (id, started, status, samples) in try await client.query(
            "SELECT id, started_at, status, samples FROM checkins"
        ).decode((UUID, Date, String, ByteBuffer).self) {
            rows.insert(Row(id: id, startedAt: started, status: status, samples: Array(samples.readableBytesView)))
        }
        return rows
    }

    func insert(_ id: UUID, startedAt: Date, on client: PostgresClient) async throws {
        let samples = try SampleSeries(
            offsetsSeconds: [0, 1, 2], averageDBFS: [-30, -31.5, -29.25], peakDBFS: [-20, -21, -19]
        ).column
        try await client.query(
            """
            INSERT INTO checkins (id, venue_id, device_id, source, started_at, ended_at, sample_count, samples,
                                  utc_offsets_min, receipt_status, status)
            SELECT \(id), (SELECT min(id) FROM venues), (SELECT min(id) FROM devices), 'v2',
                   \(startedAt), \(startedAt) + interval '2 seconds', 3, \(samples), '{0}', 'pending', 'pending'
            """, logger: logger)
    }

    @Test("every check-in kept, in its month; an old server's writes during the copy caught up under the lock")
    func moved() async throws {
        try await withEmptyTestDatabase { client, _ in
            let migrations = try Migration.load(from: TestCluster.migrationsDirectory)
            try await MigrationRunner(
                client: client, migrations: migrations.filter { $0.version <= 19 }, logger: logger
            ).apply()
            try await client.query(
                "INSERT INTO venues (external_id, name, latitude, longitude) VALUES ('old-venue', 'Old', 0, 0)")
            try await client.query("INSERT INTO devices (client_id, model) VALUES ('old-device', 'Model')")
            // Check-ins of three months, one of them at the last second of January.
            let starts = [
                "2026-01-31T23:59:59Z", "2026-01-05T10:00:00Z", "2026-02-01T00:00:00Z", "2026-02-14T20:00:00Z",
                "2026-03-30T21:00:00Z",
            ].map(CheckinPartitionTests.date)
            var ids: [UUID] = []
            for (index, start) in starts.enumerated() {
                for _ in 0..<(index + 2) {
                    let id = UUID()
                    try await insert(id, startedAt: start, on: client)
                    ids.append(id)
                }
            }
            try await client.query(
                """
                INSERT INTO checkin_hours (checkin_id, venue_id, device_id, weekday, hour, leq_dbfs, l10_dbfs,
                                           l50_dbfs, l90_dbfs, max_peak_dbfs, valid_seconds, counted)
                SELECT id, venue_id, device_id, 1, 20, -30, -28, -30, -32, -20, 3, true FROM checkins
                """, logger: logger)
            try await client.query(
                """
                INSERT INTO checkin_overrides (checkin_id, venue_id, decision, username)
                SELECT id, venue_id, 'exclude', 'admin' FROM checkins WHERE id = \(ids[0])
                """, logger: logger)

            try await MigrationRunner(
                client: client, migrations: migrations.filter { $0.version <= 20 }, logger: logger
            ).apply()
            try await client.withConnection { connection in
                try await CheckinsByMonthCopy.preparation.before(connection, logger)
            }
            // An old server still running after the copy: a new check-in (in a month without a
            // partition yet), a judgement, an erasure. Only 0020's trigger knows of them.
            let late = UUID()
            let lateStart = CheckinPartitionTests.date("2025-12-24T19:00:00Z")
            try await insert(late, startedAt: lateStart, on: client)
            try await client.query("UPDATE checkins SET status = 'outlier' WHERE id = \(ids[1])", logger: logger)
            try await client.query("DELETE FROM checkins WHERE id = \(ids[2])", logger: logger)
            let expected = try await rows(client)
            #expect(expected.count == ids.count)

            // 0021's statements as the runner runs them, without running the copy again.
            let swap = try #require(migrations.first { $0.version == 21 })
            let rest =
                migrations.filter { $0.version <= 20 || $0.version >= 22 }
                + [Migration(version: 21, name: "0021_without_its_preparation.sql", sql: swap.sql)]
            let applied = try await MigrationRunner(
                client: client, migrations: rest.sorted { $0.version < $1.version }, logger: logger
            ).apply()
            #expect(applied.prefix(2) == [21, 22])

            #expect(try await rows(client) == expected)
            let partitions = try await CheckinPartitions(client: client, logger: logger).names()
            for month in ["2025_12", "2026_01", "2026_02", "2026_03"] {
                #expect(partitions.contains("checkins_\(month)"), "\(partitions)")
            }
            var months: [UUID: String] = [:]
            for try await (id, partition) in try await client.query(
                "SELECT id, tableoid::regclass::text FROM checkins"
            ).decode((UUID, String).self) {
                months[id] = partition
            }
            #expect(months[late] == "checkins_2025_12")
            #expect(months[ids[0]] == "checkins_2026_01")
            #expect(months[ids.last!] == "checkins_2026_03")
            // Ids: exactly the check-ins'; the erased one's hours gone with it, the rest kept.
            #expect(try await client.count("checkin_ids") == expected.count)
            #expect(try await client.count("checkin_ids", where: "id = '\(ids[2])'") == 0)
            #expect(try await client.count("checkin_hours") == ids.count - 1)
            #expect(try await client.count("checkin_overrides") == 1)
            let unvalidated = try await client.query(
                """
                SELECT count(*) FROM pg_constraint
                WHERE conname IN ('checkin_hours_checkin_id_fkey', 'checkin_overrides_checkin_id_fkey')
                  AND convalidated AND confrelid = 'checkin_ids'::regclass
                """
            ).decode(Int.self).first { _ in true }
            #expect(unvalidated == 2, "0022 validated the keys 0021 added")
            for gone in ["checkins_by_month", "checkins_changed"] {
                let exists = try await client.query("SELECT to_regclass(\(gone)) IS NOT NULL").decode(Bool.self)
                    .first { _ in true }
                #expect(exists == false, "\(gone)")
            }
            let indexes = try await client.query(
                "SELECT count(*) FROM pg_indexes WHERE tablename = 'checkins' AND indexname LIKE 'checkins\\_%'"
            ).decode(Int.self).first { _ in true }
            // The key and four indexes came over renamed; 0023 then dropped the one on `cleaned_at`.
            #expect(indexes == 4)
            // The store reads a moved check-in, and an erasure of its device would find its id.
            let found = try #require(try await CheckinRepository(client: client, logger: logger).find(id: ids[3]))
            #expect(found.averageDBFS == [-30, -31.5, -29.25])
        }
    }
}
