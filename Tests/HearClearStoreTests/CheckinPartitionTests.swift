import Foundation
import HearClearModel
import HearClearTestSupport
import Logging
import LoudnessCore
import PostgresNIO
import Testing

@testable import HearClearStore

/// `checkins` partitioned by the UTC month of `started_at` (migration 0020): where rows go, what
/// a resend finds across months, the partitions made ahead, and a month taken out whole.
@Suite("Check-ins partitioned by month")
struct CheckinPartitionTests {
    static let logger = Logger(label: "test")

    /// An RFC 3339 time of a test (these suites' fixed dates).
    static func date(_ text: String) -> Date { ISO8601DateFormatter().date(from: text)! }

    static func submission(start: Date, id: UUID = UUID(), device: String = "phone-1") -> CheckinSubmission {
        var submission = SubmissionFixture.submission(
            venue: "partition-venue", timezone: "UTC", device: device, levelDBFS: -30, start: start)
        submission.id = id
        return submission
    }

    /// The partition holding each stored row of `id` (one, unless the id rule broke).
    static func partitions(of id: UUID, _ client: PostgresClient) async throws -> [String] {
        var names: [String] = []
        for try await name in try await client.query(
            "SELECT tableoid::regclass::text FROM checkins WHERE id = \(id)", logger: logger
        ).decode(String.self) {
            names.append(name)
        }
        return names
    }

    @Test("a check-in goes to its UTC month's partition, made at ingest when the month has none")
    func placement() async throws {
        try await withTestDatabase { client, _ in
            let checkins = CheckinRepository(client: client, logger: Self.logger)
            let partitions = CheckinPartitions(client: client, logger: Self.logger)
            #expect(!(try await partitions.names()).contains("checkins_2025_03"))

            // 23:30 on 31 March in UTC is 01:30 on 1 April in Paris: the month is UTC's.
            let march = Self.submission(start: Self.date("2025-03-31T23:30:00Z"))
            guard case .created = try await checkins.ingest(march, maxDistanceMetres: 250) else {
                Issue.record("not created")
                return
            }
            #expect(try await Self.partitions(of: march.id, client) == ["checkins_2025_03"])
            let april = Self.submission(start: Self.date("2025-04-01T00:00:00Z"))
            guard case .created = try await checkins.ingest(april, maxDistanceMetres: 250) else {
                Issue.record("not created")
                return
            }
            #expect(try await Self.partitions(of: april.id, client) == ["checkins_2025_04"])
            let names = try await partitions.names()
            #expect(names.contains("checkins_2025_03") && names.contains("checkins_2025_04"))
            #expect(!names.contains("checkins_2025_02") && !names.contains("checkins_2025_05"))
        }
    }

    @Test("a resend across a month boundary is the same check-in; its id with another start is refused")
    func resendAcrossMonths() async throws {
        try await withTestDatabase { client, _ in
            let checkins = CheckinRepository(client: client, logger: Self.logger)
            // Five minutes from 23:58 on 31 January: it starts in January and ends in February.
            let first = Self.submission(start: Self.date("2026-01-31T23:58:00Z"))
            guard case .created(let receipt) = try await checkins.ingest(first, maxDistanceMetres: 250) else {
                Issue.record("not created")
                return
            }
            #expect(try await Self.partitions(of: first.id, client) == ["checkins_2026_01"])

            // The phone sends it again (its answer was lost): the same receipt, nothing new.
            guard case .duplicate(let again) = try await checkins.ingest(first, maxDistanceMetres: 250) else {
                Issue.record("the resend was not found")
                return
            }
            #expect(again == receipt)

            // The same id with a start five minutes later (February): another partition's key, so
            // only `checkin_ids` can tell. Refused, and nothing is stored in February.
            var moved = first
            moved.startedAt = first.startedAt.addingTimeInterval(300)
            guard case .conflict(let id) = try await checkins.ingest(moved, maxDistanceMetres: 250) else {
                Issue.record("an id was stored twice")
                return
            }
            #expect(id == first.id)
            #expect(try await Self.partitions(of: first.id, client) == ["checkins_2026_01"])
            #expect(try await client.count("checkin_ids") == 1)
            #expect(try await client.count("venue_counts", where: "checkins = 1") == 1)
        }
    }

    @Test("one id sent at once with starts in two months: one check-in, the other refused")
    func racingAcrossMonths() async throws {
        try await withTestDatabase { client, _ in
            let checkins = CheckinRepository(client: client, logger: Self.logger)
            // The venue and device exist first, so both requests take the one-statement path.
            _ = try await checkins.ingest(
                Self.submission(start: Self.date("2026-03-01T12:00:00Z")), maxDistanceMetres: 250)
            for round in 0..<10 {
                let id = UUID()
                let january = Self.submission(start: Self.date("2026-01-31T23:58:00Z"), id: id)
                let february = Self.submission(start: Self.date("2026-02-01T00:01:00Z"), id: id)
                async let a = checkins.ingest(january, maxDistanceMetres: 250)
                async let b = checkins.ingest(february, maxDistanceMetres: 250)
                let outcomes = try await [a, b]
                let created = outcomes.filter { if case .created = $0 { true } else { false } }.count
                let refused = outcomes.filter { if case .conflict = $0 { true } else { false } }.count
                #expect(created == 1 && refused == 1, "round \(round): \(outcomes)")
                #expect(try await Self.partitions(of: id, client).count == 1, "round \(round)")
            }
        }
    }

    @Test("the server makes the month before now's through two after, once")
    func madeAhead() async throws {
        try await withTestDatabase { client, _ in
            let partitions = CheckinPartitions(client: client, logger: Self.logger)
            // 14 days into June 2031: May (a check-in may be two weeks old) to August.
            let made = try await partitions.makeAhead(of: Self.date("2031-06-14T10:00:00Z"))
            #expect(made == 4)
            let names = try await partitions.names()
            for month in ["2031_05", "2031_06", "2031_07", "2031_08"] {
                #expect(names.contains("checkins_\(month)"))
            }
            #expect(!names.contains("checkins_2031_04") && !names.contains("checkins_2031_09"))
            #expect(try await partitions.makeAhead(of: Self.date("2031-06-14T10:00:00Z")) == 0)
            // Its bounds are the UTC month's, whatever the session's zone: 20:00 UTC on 31 January
            // is already February in Auckland.
            let range = try await client.withConnection { connection in
                try await connection.query("SET TIME ZONE 'Pacific/Auckland'", logger: Self.logger)
                try await connection.query(
                    "SELECT checkins_partition('2032-01-31T20:00:00Z')::text", logger: Self.logger)
                try await connection.query("SET TIME ZONE 'UTC'", logger: Self.logger)
                return try await connection.query(
                    """
                    SELECT c.relname::text || ' ' || pg_get_expr(c.relpartbound, c.oid) FROM pg_class c
                    WHERE c.relname LIKE 'checkins_2032%'
                    """, logger: Self.logger
                ).decode(String.self).first { _ in true }
            }
            #expect(
                range == "checkins_2032_01 FOR VALUES FROM ('2032-01-01 00:00:00+00') TO ('2032-02-01 00:00:00+00')")
        }
    }

    @Test("a month is detached whole, and its ids still refuse a resend")
    func detachedMonth() async throws {
        try await withTestDatabase { client, _ in
            let checkins = CheckinRepository(client: client, logger: Self.logger)
            let old = Self.submission(start: Self.date("2025-06-10T20:00:00Z"))
            let recent = Self.submission(start: SubmissionFixture.previousHourStart)
            for submission in [old, recent] {
                guard case .created = try await checkins.ingest(submission, maxDistanceMetres: 250) else {
                    Issue.record("not created")
                    return
                }
            }
            // What an archive does: the month leaves `checkins` at once, without deleting a row.
            try await client.query("ALTER TABLE checkins DETACH PARTITION checkins_2025_06", logger: Self.logger)
            #expect(try await client.count("checkins") == 1)
            #expect(try await client.count("checkins_2025_06") == 1)
            guard case .conflict = try await checkins.ingest(old, maxDistanceMetres: 250) else {
                Issue.record("a check-in of an archived month was stored again")
                return
            }
            #expect(try await client.count("checkins") == 1)
            try await client.query("DROP TABLE checkins_2025_06", logger: Self.logger)
        }
    }
}
