import Foundation
import HearClearTestSupport
import Logging
import LoudnessCore
import PostgresNIO
import Testing

@testable import HearClearStore

/// The admin's report lists are one index walk cut by their LIMIT, and the dashboard's disputed
/// hours read only open disputing reports: checked on the plans PostgreSQL chooses for 100,000
/// reports over 2,000 of 10,000 venues, a quarter from 20,000 known devices (analysed), most of
/// them closed.
@Suite("Report list queries use an index and a limit")
struct ReportQueryPlanTests {
    static let logger = Logger(label: "test")

    static func seed(_ client: PostgresClient) async throws {
        let statements = [
            """
            INSERT INTO venues (external_id, name, latitude, longitude)
            SELECT 'v' || i, 'Venue ' || i, 0, 0 FROM generate_series(1, 10000) i
            """,
            "INSERT INTO devices (client_id, model) SELECT 'device-' || i, 'Model' FROM generate_series(1, 20000) i",
            """
            INSERT INTO venue_reports (venue_id, device_sha256, device_id, at, weekday, hour, felt, comment, status,
                                       created_at, resolved_at, resolved_by)
            SELECT v.first + i % 2000, sha256(convert_to('device-' || i % 5000, 'UTF8')),
                   CASE WHEN i % 4 = 0 THEN d.first + i % 5000 END,
                   now() - make_interval(secs => i), 1 + i % 7, i % 24,
                   (ARRAY['quieter', 'louder', 'about right'])[1 + i % 3], 'comment ' || i,
                   CASE WHEN i % 50 = 0 THEN 'open' WHEN i % 2 = 0 THEN 'resolved' ELSE 'dismissed' END,
                   now() - make_interval(secs => i),
                   CASE WHEN i % 50 = 0 THEN NULL ELSE now() END, CASE WHEN i % 50 = 0 THEN NULL ELSE 'admin' END
            FROM generate_series(1, 100000) i, (SELECT min(id) AS first FROM venues) v,
                 (SELECT min(id) AS first FROM devices) d
            """,
            """
            INSERT INTO loudness_cells (venue_id, weekday, hour, level_dbfs, range_low_dbfs, range_high_dbfs, scale_db,
                                        checkins, devices, confidence)
            SELECT v.id, w, h, -30, -31, -29, 1, 3, 3, 'medium'
            FROM venues v, generate_series(1, 7) w, generate_series(18, 23) h
            WHERE v.id < (SELECT min(id) + 2000 FROM venues)
            """,
            "ANALYZE",
        ]
        for statement in statements {
            try await client.query(PostgresQuery(unsafeSQL: statement), logger: logger)
        }
    }

    static func plan(_ query: PostgresQuery, _ client: PostgresClient) async throws -> String {
        let explain = PostgresQuery(unsafeSQL: "EXPLAIN " + query.sql, binds: query.binds)
        var lines: [String] = []
        for try await line in try await client.query(explain, logger: logger).decode(String.self) {
            lines.append(line)
        }
        return lines.joined(separator: "\n")
    }

    @Test("all, by status, a venue's open ones, and the disputed hours")
    func plans() async throws {
        try await withTestDatabase { client, _ in
            try await Self.seed(client)
            let venueID = try #require(
                try await client.query("SELECT id FROM venues WHERE external_id = 'v42'").collect().first?.decode(
                    Int64.self))
            let lists: [(String, PostgresQuery)] = [
                ("all", AdminReportRepository.listQuery(status: nil, limit: 51, offset: 0)),
                ("all, page 10", AdminReportRepository.listQuery(status: nil, limit: 51, offset: 450)),
                ("open", AdminReportRepository.listQuery(status: .open, limit: 51, offset: 0)),
                ("resolved", AdminReportRepository.listQuery(status: .resolved, limit: 51, offset: 0)),
                ("a venue's open", AdminReportRepository.openQuery(venueID: venueID, limit: 20)),
            ]
            for (name, query) in lists {
                let plan = try await Self.plan(query, client)
                #expect(plan.hasPrefix("Limit"), "\(name): \(plan)")
                for table in ["venue_reports", "venues", "loudness_cells", "devices"] {
                    #expect(!plan.contains("Seq Scan on \(table) "), "\(name): \(plan)")
                }
            }
            let disputed = try await Self.plan(
                AdminReportRepository.disputedCellsQuery(minimumDevices: ReportReview.minimumDevices, limit: 11),
                client)
            #expect(disputed.contains("venue_reports_open_cell_idx"), "\(disputed)")
            #expect(!disputed.contains("Seq Scan on venue_reports "), "\(disputed)")
        }
    }

    @Test("the open-count and the disputed hours read what the seed holds")
    func figures() async throws {
        try await withTestDatabase { client, _ in
            try await Self.seed(client)
            let repository = AdminReportRepository(client: client, logger: Self.logger)
            #expect(try await repository.openCount() == 2_000)
            // Open reports are every 50th; those 42,000 apart (the least common multiple of the
            // 2,000 venues, 7 weekdays and 24 hours) share a cell, from other devices.
            let disputed = try await repository.disputedCells(minimumDevices: 2, limit: 10)
            #expect(disputed.count == 10)
            #expect(disputed.allSatisfy { $0.devices >= 2 && $0.quieter + $0.louder == $0.devices })
            #expect(zip(disputed, disputed.dropFirst()).allSatisfy { $0.latestAt >= $1.latestAt })
            #expect(disputed.allSatisfy { $0.levelNowDBFS == nil || $0.levelNowDBFS == -30 })
        }
    }
}
