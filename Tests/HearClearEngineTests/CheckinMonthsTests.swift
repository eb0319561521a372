import Foundation
import HearClearModel
import HearClearStore
import HearClearTestSupport
import LoudnessCore
import PostgresNIO
import Testing

@testable import HearClearEngine

/// `hearclear months`: whole months of check-ins listed and dropped, with everything that names
/// their check-ins (docs/ARCHITECTURE.md, "Check-ins by month").
@Suite("Months of check-ins")
struct CheckinMonthsTests {
    static let utc = TimeZone(identifier: "UTC")!

    static func date(_ text: String) -> Date { ISO8601DateFormatter().date(from: text)! }

    @Test("YYYY-MM and nothing else is a month; partition names read back; months add across years")
    func parsing() throws {
        #expect(UTCMonth(parsing: "2025-06") == UTCMonth(year: 2025, month: 6))
        #expect(UTCMonth(parsing: "0001-01") == UTCMonth(year: 1, month: 1))
        for bad in [
            "2025-6", "2025-13", "2025-00", "25-06", "2025/06", "2025-06-01", "", "abcd-ef", " 2025-06", "2025-06 ",
            "+202-06", "0000-01", "２０２５-06", "2025_06",
        ] {
            #expect(UTCMonth(parsing: bad) == nil, "\(bad) is no month")
        }
        let june = try #require(UTCMonth(year: 2025, month: 6))
        #expect(june.description == "2025-06" && june.partitionName == "checkins_2025_06")
        #expect(UTCMonth(partitionName: "checkins_2025_06") == june)
        #expect(
            UTCMonth(partitionName: "checkins_2025-06") == nil && UTCMonth(partitionName: "checkins_by_month") == nil)
        #expect(june.start == Self.date("2025-06-01T00:00:00Z"))
        #expect(june.adding(months: 7) == UTCMonth(year: 2026, month: 1))
        #expect(june.adding(months: -6) == UTCMonth(year: 2024, month: 12))
        #expect(june.adding(months: -18) == UTCMonth(year: 2023, month: 12))
        #expect(UTCMonth(containing: Self.date("2025-06-30T23:59:59Z")) == june)
        #expect(UTCMonth(containing: Self.date("2025-07-01T00:00:00Z")) == june.adding(months: 1))
    }

    @Test("the latest month --before may name: none that can still receive a check-in, none kept by the floor")
    func latestBefore() throws {
        // 10 November: a check-in of 27 October is still accepted, so October stays.
        let early = Self.date("2026-11-10T12:00:00Z")
        #expect(CheckinMonths.latestBefore(now: early, keepMonths: 0) == UTCMonth(year: 2026, month: 10))
        // 20 November: 14 days back is 6 November, so October can no longer receive one.
        let late = Self.date("2026-11-20T12:00:00Z")
        #expect(CheckinMonths.latestBefore(now: late, keepMonths: 0) == UTCMonth(year: 2026, month: 11))
        #expect(CheckinMonths.latestBefore(now: late, keepMonths: 1) == UTCMonth(year: 2026, month: 10))
        #expect(CheckinMonths.latestBefore(now: late, keepMonths: 3) == UTCMonth(year: 2026, month: 8))
        #expect(CheckinMonths.latestBefore(now: early, keepMonths: 14) == UTCMonth(year: 2025, month: 9))
        // Exactly 14 days after a month ended it may go.
        #expect(
            CheckinMonths.latestBefore(now: Self.date("2026-11-15T00:00:00Z"), keepMonths: 0)
                == UTCMonth(year: 2026, month: 11))
        #expect(
            CheckinMonths.latestBefore(now: Self.date("2026-11-14T23:59:59Z"), keepMonths: 0)
                == UTCMonth(year: 2026, month: 10))
        #expect(
            throws: CheckinMonths.Refusal.tooRecent(
                before: UTCMonth(year: 2026, month: 11)!, latest: UTCMonth(year: 2026, month: 10)!, keepMonths: 0)
        ) {
            try CheckinMonths.check(before: UTCMonth(year: 2026, month: 11)!, now: early, keepMonths: 0)
        }
        #expect(throws: CheckinMonths.Refusal.invalidKeepMonths(-1)) {
            try CheckinMonths.check(before: UTCMonth(year: 2020, month: 1)!, now: early, keepMonths: -1)
        }
    }

    // MARK: The drop

    /// Two venues and two devices: `gone` has check-ins only in the dropped month; `stays` in the
    /// dropped month, in a kept month 13 weeks later (same weekday and hour) and now.
    struct City {
        let droppedMonth: UTCMonth
        let keptMonth: UTCMonth
        let dropped: [CheckinSubmission]
        let kept: [CheckinSubmission]
    }

    static func city(now: Date) -> City {
        let keptStart = UTCMonth(containing: now.addingTimeInterval(-100 * 86_400)).start
            .addingTimeInterval(5 * 86_400 + 20 * 3_600 + 600)
        let droppedStart = keptStart.addingTimeInterval(-91 * 86_400)
        func checkin(_ venue: String, _ device: String, _ start: Date, _ level: Double) -> CheckinSubmission {
            SubmissionFixture.submission(
                venue: venue, timezone: "UTC", device: device, levelDBFS: level, start: start, seconds: 120)
        }
        let dropped = [
            checkin("gone", "phone-a", droppedStart, -30),
            checkin("gone", "phone-b", droppedStart.addingTimeInterval(300), -31),
            checkin("stays", "phone-a", droppedStart.addingTimeInterval(900), -20),
            checkin("stays", "phone-b", droppedStart.addingTimeInterval(1_200), -21),
        ]
        let kept = [
            checkin("stays", "phone-a", keptStart, -40),
            checkin("stays", "phone-b", keptStart.addingTimeInterval(300), -41),
            checkin("stays", "phone-a", SubmissionFixture.previousHourStart, -42),
        ]
        return City(
            droppedMonth: UTCMonth(containing: droppedStart), keptMonth: UTCMonth(containing: keptStart),
            dropped: dropped, kept: kept)
    }

    static func engine(_ client: PostgresClient) throws -> Engine {
        var configuration = EngineConfiguration()
        configuration.deviceKey = try DeviceKey(secret: "hearclear-tests-device-key-0123456789abcdef")
        return Engine(client: client, configuration: configuration, logger: engineTestLogger)
    }

    static func judgeAll(_ client: PostgresClient) async throws {
        let worker = Aggregator(client: client, logger: engineTestLogger)
        while !(try await worker.processNext(limit: 8).isEmpty) {}
    }

    /// A venue's measured cells: weekday, hour, level, check-ins, devices.
    struct Cell: Equatable, CustomStringConvertible {
        var weekday: Int, hour: Int, level: Double, checkins: Int, devices: Int
        var description: String { "\(weekday)/\(hour) \(level) dBFS \(checkins) check-ins \(devices) devices" }
    }

    static func measuredCells(_ venue: String, _ client: PostgresClient) async throws -> [Cell] {
        let rows = try await client.query(
            """
            SELECT l.weekday::int, l.hour::int, l.level_dbfs::float8, l.checkins::int, l.devices::int
            FROM loudness_cells l JOIN venues v ON v.id = l.venue_id
            WHERE v.external_id = \(venue) AND NOT l.estimated ORDER BY 1, 2
            """, logger: engineTestLogger)
        var cells: [Cell] = []
        for try await (weekday, hour, level, checkins, devices) in rows.decode((Int, Int, Double, Int, Int).self) {
            cells.append(Cell(weekday: weekday, hour: hour, level: level, checkins: checkins, devices: devices))
        }
        return cells
    }

    /// Everything a drop may change, as text: rows naming check-ins, counts, queue, cells,
    /// partitions, audit log.
    static func everything(_ client: PostgresClient) async throws -> [[String]] {
        [
            try await client.texts(
                "SELECT jsonb_build_array(id, venue_id, status, started_at)::text FROM checkins ORDER BY id"),
            try await client.texts("SELECT id::text FROM checkin_ids ORDER BY id"),
            try await client.texts(
                "SELECT (to_jsonb(h))::text FROM checkin_hours h ORDER BY checkin_id, weekday, hour"),
            try await client.texts(
                "SELECT (to_jsonb(o) - 'created_at')::text FROM checkin_overrides o ORDER BY checkin_id"),
            try await client.texts("SELECT (to_jsonb(q) - 'enqueued_at')::text FROM aggregation_queue q ORDER BY id"),
            try await client.texts("SELECT (to_jsonb(c))::text FROM venue_counts c ORDER BY venue_id"),
            try await client.texts(
                "SELECT (to_jsonb(l) - 'updated_at' - 'computed_at')::text FROM loudness_cells l ORDER BY venue_id, weekday, hour"
            ),
            try await client.texts(
                "SELECT c.relname::text FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid WHERE i.inhparent = 'checkins'::regclass ORDER BY 1"
            ),
            try await client.texts("SELECT (to_jsonb(a) - 'at' - 'id')::text FROM admin_audit_log a ORDER BY id"),
        ]
    }

    @Test(
        "dropping a month removes its check-ins from every table that names them, lowers the counts, queues its venues, whose cells are then those of the check-ins left; other months, and ingest, carry on"
    )
    func drop() async throws {
        let now = Date()
        let city = Self.city(now: now)
        // What the check-ins left give, judged in a database that never had the dropped month.
        let expected = try await withTestDatabase { client, _ in
            let repository = CheckinRepository(client: client, logger: engineTestLogger)
            for submission in city.kept { _ = try await repository.ingest(submission, maxDistanceMetres: 250) }
            try await Self.judgeAll(client)
            return try await Self.measuredCells("stays", client)
        }
        #expect(expected.contains { $0.checkins == 2 }, "the kept month's cell: \(expected)")

        try await withTestDatabase { client, _ in
            let engine = try Self.engine(client)
            let repository = CheckinRepository(client: client, logger: engineTestLogger)
            for submission in city.dropped + city.kept {
                let outcome = try await repository.ingest(submission, maxDistanceMetres: 250)
                guard case .created = outcome else {
                    Issue.record("\(outcome)")
                    return
                }
            }
            try await Self.judgeAll(client)
            #expect(!(try await Self.measuredCells("gone", client)).isEmpty, "gone had cells")
            let before = try await Self.measuredCells("stays", client)
            #expect(before.contains { $0.checkins == 4 }, "the dropped and kept months share a cell: \(before)")
            let droppedIDs = city.dropped.map(\.id)
            let keptIDs = city.kept.map(\.id)
            // An admin's decision on a check-in of each month, and a queue entry naming one of the
            // dropped month's (a worker that has been stopped).
            try await client.query(
                """
                INSERT INTO checkin_overrides (checkin_id, venue_id, decision, username)
                SELECT id, venue_id, 'include', 'admin' FROM checkins WHERE id = ANY(\([droppedIDs[2], keptIDs[0]]))
                """, logger: engineTestLogger)
            try await client.query(
                """
                INSERT INTO aggregation_queue (venue_id, checkins_only, checkin_id, checkin_started_at)
                SELECT venue_id, true, id, started_at FROM checkins WHERE id = \(droppedIDs[0])
                """, logger: engineTestLogger)

            // The listing.
            let listed = try await engine.months.list(now: now)
            let droppedEntry = try #require(listed.first { $0.month.month == city.droppedMonth })
            #expect(droppedEntry.month.checkins == 4 && droppedEntry.mayDrop)
            #expect(droppedEntry.month.oldestStartedAt == city.dropped[0].startedAt)
            #expect(droppedEntry.month.newestStartedAt == city.dropped[3].startedAt)
            #expect(droppedEntry.month.bytes > 0)
            #expect(listed.first { $0.month.month == city.keptMonth }?.month.checkins == 2)
            let current = try #require(listed.first { $0.month.month == UTCMonth(containing: now) })
            #expect(!current.mayDrop)
            #expect(listed.map(\.month.month) == listed.map(\.month.month).sorted())

            let untouched = try await Self.everything(client)
            // Refused: a month that can still receive check-ins, or one the floor keeps.
            for (before, keep) in [
                (CheckinMonths.latestBefore(now: now, keepMonths: 0).adding(months: 1), 0),
                (UTCMonth(containing: now).adding(months: 1), 0),
                (CheckinMonths.latestBefore(now: now, keepMonths: 3).adding(months: 1), 3),
            ] {
                await #expect(throws: CheckinMonths.Refusal.self) {
                    _ = try await engine.months.drop(before: before, now: now, keepMonths: keep, by: "operator")
                }
            }
            // The dry run: what would go, nothing changed.
            let plan = try await engine.months.plan(before: city.droppedMonth.adding(months: 1), now: now)
            #expect(plan.map(\.month) == [city.droppedMonth])
            #expect(try await Self.everything(client) == untouched, "refusals and the dry run change nothing")
            // Before a month no partition is in: nothing to do.
            #expect(try await engine.months.drop(before: city.droppedMonth, now: now, by: "operator").isEmpty)
            #expect(try await Self.everything(client) == untouched)

            let drops = try await engine.months.drop(
                before: city.droppedMonth.adding(months: 1), now: now, by: "operator")
            #expect(
                drops.map { [$0.checkins, $0.hours > 0 ? 1 : 0, $0.overrides, $0.queueEntries, $0.venues] }
                    == [[4, 1, 1, 1, 2]], "\(drops)")
            #expect(drops.first?.month == city.droppedMonth)
            let drop = try #require(drops.first)

            // Gone from every table that named them.
            #expect(
                try await client.count(
                    "checkins", where: "id = ANY('{\(droppedIDs.map(\.uuidString).joined(separator: ","))}')") == 0)
            for (table, column) in [
                ("checkin_ids", "id"), ("checkin_hours", "checkin_id"), ("checkin_overrides", "checkin_id"),
                ("aggregation_queue", "checkin_id"),
            ] {
                let ids = droppedIDs.map(\.uuidString).joined(separator: ",")
                #expect(try await client.count(table, where: "\(column) = ANY('{\(ids)}')") == 0, "\(table)")
            }
            #expect(
                try await client.count(
                    "pg_class", where: "relname = '\(city.droppedMonth.partitionName)'") == 0,
                "the partition is dropped")
            // The other months untouched.
            let keptList = keptIDs.map(\.uuidString).joined(separator: ",")
            #expect(try await client.count("checkins", where: "id = ANY('{\(keptList)}')") == 3)
            #expect(try await client.count("checkin_ids", where: "id = ANY('{\(keptList)}')") == 3)
            #expect(try await client.count("checkin_hours", where: "checkin_id = ANY('{\(keptList)}')") >= 3)
            #expect(try await client.count("checkin_overrides") == 1)
            // Counts: `gone` has none left, `stays` its three.
            #expect(
                try await client.texts(
                    "SELECT v.external_id || ' ' || c.checkins FROM venue_counts c JOIN venues v ON v.id = c.venue_id ORDER BY 1"
                ) == ["gone 0", "stays 3"])
            // Both venues queued for a full judgement; the audit log says so, counts only.
            #expect(try await client.count("aggregation_queue", where: "NOT checkins_only") == 2)
            #expect(
                try await client.texts(
                    "SELECT username || ' | ' || action || ' | ' || subject || ' | ' || detail FROM admin_audit_log"
                ) == [
                    "operator | check-in month dropped | \(city.droppedMonth) | 4 check-ins, \(drop.hours) hours, 1 decisions, 1 queue entries, 2 venues queued, \(drop.bytes) bytes"
                ])

            // Judged again: the cells are what the check-ins left give.
            try await Self.judgeAll(client)
            #expect(try await Self.measuredCells("gone", client).isEmpty, "no measured cell without check-ins")
            let after = try await Self.measuredCells("stays", client)
            #expect(after.count == expected.count, "\(after) against \(expected)")
            for (cell, wanted) in zip(after, expected) {
                #expect(
                    cell.weekday == wanted.weekday && cell.hour == wanted.hour && cell.checkins == wanted.checkins
                        && cell.devices == wanted.devices && abs(cell.level - wanted.level) < 0.01,
                    "\(cell) against \(wanted)")
            }
            let listedAfter = try await engine.months.list(now: now)
            #expect(!listedAfter.contains { $0.month.month == city.droppedMonth })
            #expect(listedAfter.count == listed.count - 1)

            // Ingest into the current months goes on.
            let fresh = SubmissionFixture.submission(
                venue: "stays", timezone: "UTC", device: "phone-c", levelDBFS: -42,
                start: SubmissionFixture.previousHourStart.addingTimeInterval(60), seconds: 60)
            guard case .created = try await repository.ingest(fresh, maxDistanceMetres: 250) else {
                Issue.record("a new check-in after the drop was not stored")
                return
            }
            #expect(try await client.count("venue_counts", where: "checkins = 4") == 1)
            // A resend of a dropped check-in below the API (the API refuses it: its samples are
            // more than 14 days old): its id is free again, so it is stored as a new check-in, in
            // its month made again.
            guard case .created = try await repository.ingest(city.dropped[0], maxDistanceMetres: 250) else {
                Issue.record("the resend below the API was not stored")
                return
            }
            #expect(try await engine.months.list(now: now).contains { $0.month.month == city.droppedMonth })
        }
    }

    @Test(
        "a drop that cannot have its lock in time is rolled back whole, says so, and runs again once the lock is free")
    func lockTimeout() async throws {
        let now = Date()
        let city = Self.city(now: now)
        try await withTestDatabase { client, _ in
            let repository = CheckinRepository(client: client, logger: engineTestLogger)
            for submission in city.dropped + city.kept {
                _ = try await repository.ingest(submission, maxDistanceMetres: 250)
            }
            try await Self.judgeAll(client)
            let untouched = try await Self.everything(client)
            let months = CheckinMonthRepository(client: client, logger: engineTestLogger)
            // A reader holds `checkins` in an open transaction: the detach cannot have its lock.
            try await client.withConnection { reader in
                try await reader.query("BEGIN", logger: engineTestLogger)
                try await reader.query("SELECT count(*) FROM checkins", logger: engineTestLogger)
                do {
                    _ = try await months.drop(city.droppedMonth, by: "operator", lockTimeout: .milliseconds(200))
                    Issue.record("the drop went through a held lock")
                } catch {
                    #expect(CheckinMonthRepository.isLockConflict(error), "\(String(reflecting: error))")
                }
                try await reader.query("ROLLBACK", logger: engineTestLogger)
            }
            #expect(try await Self.everything(client) == untouched, "rolled back whole")
            let drop = try await months.drop(city.droppedMonth, by: "operator")
            #expect(drop?.checkins == 4)
            #expect(try await months.drop(city.droppedMonth, by: "operator") == nil, "no partition: nothing to do")
        }
    }
}
