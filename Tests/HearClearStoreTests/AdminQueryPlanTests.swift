import Foundation
import HearClearTestSupport
import Logging
import PostgresNIO
import Testing

@testable import HearClearStore

/// Every list the admin shows is one index walk that stops at its LIMIT: checked on the plans
/// PostgreSQL chooses for 10,000 venues, 20,000 devices, 200,000 check-ins and 420,000 cells (analysed).
@Suite("Admin list queries use an index and a limit")
struct AdminQueryPlanTests {
    static let logger = Logger(label: "test")

    static func seed(_ client: PostgresClient) async throws {
        let oneSample = try SampleSeries(offsetsSeconds: [0], averageDBFS: [-30], peakDBFS: [-20]).column
            .readableBytesView.map { String(format: "%02x", $0) }.joined()
        let statements = [
            """
            INSERT INTO venues (external_id, name, latitude, longitude, created_at)
            SELECT 'v' || i, 'The ' || md5(i::text), 0, 0, now() - make_interval(days => 30)
            FROM generate_series(1, 10000) i
            """,
            """
            INSERT INTO devices (client_id, model)
            SELECT 'device-' || i, 'Model ' || (i % 20) FROM generate_series(1, 20000) i
            """,
            // Ids registered first (migration 0020), as ingest does.
            "INSERT INTO checkin_ids (id) SELECT md5(i::text)::uuid FROM generate_series(1, 200000) i",
            """
            INSERT INTO checkins (id, venue_id, device_id, source, received_at, started_at, ended_at, sample_count,
                                  samples, utc_offsets_min, receipt_status, status,
                                  level_dbfs, valid_seconds)
            SELECT md5(i::text)::uuid, v.first + i % 10000, d.first + i % 20000, 'v2',
                   now() - make_interval(secs => i), now() - make_interval(secs => i + 60),
                   now() - make_interval(secs => i), 1, '\\x\(oneSample)', '{0}', 'pending',
                   CASE WHEN i % 5 = 0 THEN 'outlier' ELSE 'included' END, -30, 1
            FROM generate_series(1, 200000) i,
                 (SELECT min(id) AS first FROM venues) v, (SELECT min(id) AS first FROM devices) d
            """,
            """
            INSERT INTO checkin_hours (checkin_id, venue_id, device_id, weekday, hour, leq_dbfs, l10_dbfs, l50_dbfs,
                                       l90_dbfs, max_peak_dbfs, valid_seconds, counted, residual_db, other_devices)
            SELECT id, venue_id, device_id, 5, 21, -30, -28, -30, -32, -20, 60, true, 1.5, 2
            FROM checkins TABLESAMPLE BERNOULLI (25) REPEATABLE (7)
            """,
            """
            INSERT INTO loudness_cells (venue_id, weekday, hour, level_dbfs, range_low_dbfs, range_high_dbfs, scale_db,
                                        checkins, devices, confidence)
            SELECT v.id, w, h, -30, -31, -29, 1, 3, 3, 'medium'
            FROM venues v, generate_series(1, 7) w, generate_series(18, 23) h
            """,
            // What the aggregation worker records as each venue's newest check-in.
            """
            UPDATE venue_activity a SET last_checkin_at = m.last, activity_at = greatest(a.activity_at, m.last)
            FROM (SELECT venue_id, max(received_at) AS last FROM checkins GROUP BY venue_id) m
            WHERE a.venue_id = m.venue_id
            """,
            "ANALYZE",
        ]
        for statement in statements {
            try await client.query(PostgresQuery(unsafeSQL: statement), logger: logger)
        }
    }

    /// The plan PostgreSQL chooses; with `sequentialScans: false`, the one it finds when table
    /// scans are ruled out, which shows which index can serve the query.
    static func plan(_ query: PostgresQuery, _ client: PostgresClient, sequentialScans: Bool = true) async throws
        -> String
    {
        try await client.withConnection { connection in
            try await connection.query(
                PostgresQuery(unsafeSQL: "SET enable_seqscan = \(sequentialScans ? "on" : "off")"), logger: logger)
            let explain = PostgresQuery(unsafeSQL: "EXPLAIN " + query.sql, binds: query.binds)
            var lines: [String] = []
            for try await line in try await connection.query(explain, logger: logger).decode(String.self) {
                lines.append(line)
            }
            try await connection.query("RESET enable_seqscan", logger: logger)
            return lines.joined(separator: "\n")
        }
    }

    /// Whether `plan` reads all of `table`, or all of one of `filled`: the monthly partitions of
    /// `checkins` (migration 0020) that hold rows. (An empty one is read whole at no cost, and
    /// PostgreSQL does so.)
    static func scansWhole(_ plan: String, _ table: String, filled: [String] = []) -> Bool {
        ([table] + filled).contains { plan.contains("Seq Scan on \($0) ") }
    }

    /// The partitions of `checkins` holding rows.
    static func filledPartitions(_ client: PostgresClient) async throws -> [String] {
        var names: [String] = []
        for try await name in try await client.query("SELECT DISTINCT tableoid::regclass::text FROM checkins")
            .decode(String.self)
        {
            names.append(name)
        }
        return names
    }

    @Test("venues, venue check-ins, recent lists, devices, audit log and check-in hours")
    func plans() async throws {
        try await withTestDatabase { client, _ in
            try await Self.seed(client)
            let venueID = try #require(
                try await client.query("SELECT id FROM venues WHERE external_id = 'v42'").collect().first?.decode(
                    Int64.self)
            )
            let checkinID = try #require(
                try await client.query("SELECT checkin_id FROM checkin_hours LIMIT 1").collect().first?.decode(
                    UUID.self)
            )
            let filled = try await Self.filledPartitions(client)
            #expect(!filled.isEmpty)
            // A piece of one venue's name (names are "The <md5>"): as selective as a real search.
            let piece = try #require(
                try await client.query("SELECT substr(name, 9, 8) FROM venues WHERE external_id = 'v42'").collect()
                    .first?.decode(String.self)
            )
            let queries: [(String, PostgresQuery)] = [
                ("venues", AdminVenueRepository.listQuery(search: nil, limit: 26, offset: 0)),
                ("venues, page 10", AdminVenueRepository.listQuery(search: nil, limit: 26, offset: 225)),
                ("venue check-ins", AdminVenueRepository.checkinsQuery(venueID: venueID, limit: 51, offset: 0)),
                ("recent venues", AdminOverviewRepository.recentVenuesQuery(limit: 5)),
                ("recent devices", AdminOverviewRepository.recentDevicesQuery(limit: 5)),
                ("recent check-ins", AdminOverviewRepository.recentCheckinsQuery(limit: 5)),
                ("devices", AdminDeviceRepository.listQuery(excludedOnly: false, limit: 51, offset: 0)),
                ("excluded devices", AdminDeviceRepository.listQuery(excludedOnly: true, limit: 51, offset: 0)),
                ("audit log", AdminAuditLog.recentQuery(limit: 5)),
                ("check-in hours", AdminVenueRepository.hoursQuery(checkinID: checkinID)),
            ]
            for (name, query) in queries {
                let plan = try await Self.plan(query, client)
                #expect(plan.hasPrefix("Limit"), "\(name): \(plan)")
                for table in ["checkins", "venues", "devices", "venue_activity", "checkin_hours", "loudness_cells"] {
                    #expect(!Self.scansWhole(plan, table, filled: filled), "\(name): \(plan)")
                }
            }
            // A search may read the 10,000-row venues table when that is cheaper (about a millisecond
            // here), but only that table, and only until the page is cut; its predicate is served by
            // the trigram and prefix indexes once the table outgrows that.
            for search in [piece, "v99"] {
                let chosen = try await Self.plan(
                    AdminVenueRepository.listQuery(search: search, limit: 26, offset: 0), client)
                #expect(chosen.hasPrefix("Limit"), "\(chosen)")
                #expect(!Self.scansWhole(chosen, "checkins", filled: filled), "\(chosen)")
                let predicate: PostgresQuery =
                    "SELECT id FROM venues WHERE lower(name) LIKE \("%" + search.lowercased() + "%") OR external_id LIKE \(search + "%")"
                let indexed = try await Self.plan(predicate, client, sequentialScans: false)
                #expect(indexed.contains("Bitmap Index Scan on venues_name_trgm_idx"), "\(indexed)")
                #expect(indexed.contains("Bitmap Index Scan on venues_external_id"), "\(indexed)")
            }
        }
    }
}
