import Foundation
import HearClearModel
import HearClearTestSupport
import Logging
import PostgresNIO
import Testing

@testable import HearClearStore

/// Migrations 0017–0019 rewrite the per-second arrays of existing check-ins into `samples`,
/// losing nothing, in batches, then drop the arrays and check what is left.
@Suite("Sample arrays compacted by migration")
struct SampleMigrationTests {
    let logger = Logger(label: "test")

    /// The old arrays of one check-in, and what must come back.
    struct OldCheckin {
        var id = UUID()
        var source = "v2"
        var series: SampleSeries
        var removed = false
    }

    /// Check-ins of every kind the arrays could hold: 0.1 and 0.01 dB levels, v1's levels on no
    /// grid, gaps, spectra, a check-in whose samples the retention removed.
    static func oldCheckins(count: Int) -> [OldCheckin] {
        var random = SystemRandomNumberGenerator()
        return (0..<count).map { index in
            let n = [1, 10, 60, 300, 900][index % 5]
            var offsets = (0..<Int32(n)).map { $0 }
            if index % 3 == 0 { for i in offsets.indices where i >= n / 2 { offsets[i] += 7 } }
            let hundredths = index % 2 == 0
            let average: [Float] = (0..<n).map { _ in
                let level = Double.random(in: -80 ... -10, using: &random)
                return index % 7 == 0
                    ? Float(20 * log10(pow(10, level / 20))) + 1e-4  // on no grid, as v1's
                    : Float(Double(String(format: hundredths ? "%.2f" : "%.1f", level))!)
            }
            let peak = average.map { $0 + 6.5 }
            let spectra = index % 4 == 1
            let series = SampleSeries(
                offsetsSeconds: offsets, averageDBFS: average, peakDBFS: peak,
                lceqDdB: spectra ? average.map { Int16(($0 * 10).rounded()) + 40 } : nil,
                bandIndexes: spectra ? [3, 4, 13] : nil,
                bandsDdB: spectra ? average.flatMap { [Int16(($0 * 10).rounded()) - 30, -500, Int16.min] } : nil)
            return OldCheckin(
                source: spectra ? "v2" : (index % 7 == 0 ? "v1" : "v2"), series: series, removed: index % 11 == 5)
        }
    }

    static func insertOld(_ checkins: [OldCheckin], on client: PostgresClient) async throws {
        for c in checkins {
            let s = c.removed ? SampleSeries(offsetsSeconds: [], averageDBFS: [], peakDBFS: []) : c.series
            try await client.query(
                """
                INSERT INTO checkins (
                    id, venue_id, device_id, source, started_at, ended_at, sample_count, offsets_s, utc_offsets_min,
                    average_dbfs, peak_dbfs, lceq_ddb, band_indexes, bands_ddb, receipt_status, status,
                    cleaned_at, samples_removed_at)
                SELECT \(c.id), (SELECT min(id) FROM venues), (SELECT min(id) FROM devices), \(c.source),
                       now() - interval '1 hour', now(), \(c.series.offsetsSeconds.count), \(s.offsetsSeconds),
                       '{60}', \(s.averageDBFS), \(s.peakDBFS), \(s.lceqDdB)::smallint[], \(s.bandIndexes)::smallint[],
                       \(s.bandsDdB)::smallint[], 'pending', 'pending',
                       CASE WHEN \(c.removed) THEN now() END, CASE WHEN \(c.removed) THEN now() END
                """)
        }
    }

    /// A database at migration 16 with a venue and a device.
    func withDatabaseAt16(_ body: (PostgresClient, [Migration]) async throws -> Void) async throws {
        try await withEmptyTestDatabase { client, _ in
            let migrations = try Migration.load(from: TestCluster.migrationsDirectory)
            try await MigrationRunner(
                client: client, migrations: migrations.filter { $0.version <= 16 }, logger: logger
            )
            .apply()
            try await client.query(
                "INSERT INTO venues (external_id, name, latitude, longitude) VALUES ('old-venue', 'Old', 0, 0)")
            try await client.query("INSERT INTO devices (client_id, model) VALUES ('old-device', 'Model')")
            try await body(client, migrations)
        }
    }

    /// Every check-in's `samples`, by id (nil: NULL).
    func stored(_ client: PostgresClient) async throws -> [UUID: SampleSeries?] {
        var stored: [UUID: SampleSeries?] = [:]
        for try await (id, column) in try await client.query("SELECT id, samples FROM checkins").decode(
            (UUID, ByteBuffer?).self)
        {
            stored[id] = try SampleSeries.column(column)
        }
        return stored
    }

    func expectSame(_ stored: [UUID: SampleSeries?], _ old: [OldCheckin]) {
        #expect(stored.count == old.count)
        for c in old {
            guard let found = stored[c.id] else {
                Issue.record("check-in \(c.id) is gone")
                continue
            }
            if c.removed {
                #expect(found == nil, "a check-in whose samples were removed keeps none")
                continue
            }
            guard let found else {
                Issue.record("check-in \(c.id) lost its samples")
                continue
            }
            #expect(found.offsetsSeconds == c.series.offsetsSeconds)
            #expect(found.averageDBFS.map(\.bitPattern) == c.series.averageDBFS.map(\.bitPattern))
            #expect(found.peakDBFS.map(\.bitPattern) == c.series.peakDBFS.map(\.bitPattern))
            #expect(found.lceqDdB == c.series.lceqDdB)
            #expect(found.bandIndexes == c.series.bandIndexes)
            #expect(found.bandsDdB == c.series.bandsDdB)
        }
    }

    @Test("every check-in's arrays come back bit for bit from samples, over several batches, and the arrays go")
    func rewritesEveryCheckin() async throws {
        try await withDatabaseAt16 { client, migrations in
            let old = Self.oldCheckins(count: SampleArraysCompaction.batchSize * 2 + 37)
            try await Self.insertOld(old, on: client)

            let applied = try await MigrationRunner(client: client, migrations: migrations, logger: logger).apply()

            #expect(applied.prefix(3) == [17, 18, 19])
            expectSame(try await stored(client), old)
            let columns = try await client.query(
                """
                SELECT count(*) FROM information_schema.columns WHERE table_name = 'checkins'
                  AND column_name IN ('offsets_s', 'average_dbfs', 'peak_dbfs', 'lceq_ddb', 'band_indexes', 'bands_ddb')
                """
            ).decode(Int.self).first { _ in true }
            #expect(columns == 0)
            let unvalidated = try await client.query(
                """
                SELECT count(*) FROM pg_constraint
                WHERE conrelid = 'checkins'::regclass AND conname LIKE 'checkins_samples_%' AND NOT convalidated
                """
            ).decode(Int.self).first { _ in true }
            #expect(unvalidated == 0, "0019 validated the CHECKs 0018 added")
            // The store reads them as it reads check-ins stored since.
            let checkin = try #require(old.first { !$0.removed && $0.series.lceqDdB != nil })
            let found = try #require(try await CheckinRepository(client: client, logger: logger).find(id: checkin.id))
            #expect(found.bandsDdB == checkin.series.bandsDdB && found.offsetsSeconds == checkin.series.offsetsSeconds)
        }
    }

    @Test("check-ins written by an old server during the batches are rewritten under 0018's lock")
    func stragglers() async throws {
        try await withDatabaseAt16 { client, migrations in
            let early = Self.oldCheckins(count: 40)
            try await Self.insertOld(early, on: client)
            try await MigrationRunner(
                client: client, migrations: migrations.filter { $0.version <= 17 }, logger: logger
            )
            .apply()
            let late = Self.oldCheckins(count: 25)
            try await client.withConnection { connection in
                try await SampleArraysCompaction.preparation.before(connection, logger)
                // An old server still running: it writes arrays and no samples.
                try await Self.insertOld(late, on: client)

                // 0018's transaction, on the runner's session, as the runner runs it.
                try await connection.query("BEGIN", logger: logger)
                try await SampleArraysCompaction.preparation.within(connection, logger)
                try await connection.query("COMMIT", logger: logger)
            }
            #expect(try await client.count("checkins", where: "samples IS NULL AND samples_removed_at IS NULL") == 0)

            try await MigrationRunner(client: client, migrations: migrations, logger: logger).apply()

            expectSame(try await stored(client), early + late)
        }
    }

    @Test("a check-in without samples, or with spectra outside v2, is refused after 0018")
    func constraints() async throws {
        try await withTestDatabase { client, _ in
            try await client.query(
                "INSERT INTO venues (external_id, name, latitude, longitude) VALUES ('new-venue', 'New', 0, 0)")
            try await client.query("INSERT INTO devices (client_id, model) VALUES ('new-device', 'Model')")
            let spectra = SampleSeries(
                offsetsSeconds: [0], averageDBFS: [-30], peakDBFS: [-20], lceqDdB: [-250], bandIndexes: [1],
                bandsDdB: [-300])
            func insert(_ source: String, _ samples: ByteBuffer?) async throws {
                try await client.query(
                    """
                    WITH registered AS (INSERT INTO checkin_ids (id) VALUES (\(UUID())) RETURNING id)
                    INSERT INTO checkins (id, venue_id, device_id, source, started_at, ended_at, sample_count, samples,
                                          utc_offsets_min, receipt_status, status)
                    SELECT registered.id, (SELECT min(id) FROM venues), (SELECT min(id) FROM devices), \(source),
                           now(), now(), 1, \(samples), '{0}', 'pending', 'pending'
                    FROM registered
                    """)
            }

            try await insert("v2", try spectra.column)
            await #expect(throws: PSQLError.self) { try await insert("v1", try spectra.column) }
            await #expect(throws: PSQLError.self) { try await insert("v2", nil) }
            await #expect(throws: PSQLError.self) { try await insert("v2", ByteBuffer(bytes: [2, 0, 1, 10, 0])) }
        }
    }
}
