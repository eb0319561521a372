import Foundation
import HearClearModel
import HearClearTestSupport
import Logging
import LoudnessCore
import PostgresNIO
import Testing

@testable import HearClearStore

/// Check-ins written in groups (``IngestGroups``): what arrives while a group is being written is
/// written together, and every request still gets exactly the answer it would get alone.
///
/// Each test holds the venue's `venue_counts` row locked from another connection, so the first
/// group cannot commit: what arrives meanwhile must wait for the next group. A generous window
/// (a setting of the test, not a time it measures) lets the next group gather them.
@Suite("Check-ins written in groups")
struct IngestGroupTests {
    static let logger = Logger(label: "test")
    static let venue = "group-venue"

    static func submission(device: String, start: Date, level: Double = -30) -> CheckinSubmission {
        SubmissionFixture.submission(venue: venue, timezone: "UTC", device: device, levelDBFS: level, start: start)
    }

    /// Runs `submissions` at once through `checkins` while the venue's count row is locked, then
    /// lets them commit: their outcomes, in order.
    static func whileLocked(
        _ submissions: [CheckinSubmission], _ checkins: CheckinRepository, _ client: PostgresClient
    ) async throws -> [IngestOutcome] {
        try await client.withConnection { lock in
            try await lock.query("BEGIN", logger: logger)
            _ = try await lock.query(
                """
                SELECT 1 FROM venue_counts c JOIN venues v ON v.id = c.venue_id
                WHERE v.external_id = \(venue) FOR UPDATE OF c
                """, logger: logger
            ).collect()
            return try await withThrowingTaskGroup(of: (Int, IngestOutcome).self) { group in
                for (index, submission) in submissions.enumerated() {
                    group.addTask { (index, try await checkins.ingest(submission, maxDistanceMetres: 250)) }
                }
                // Released once a statement waits for it (so a group is being written), whatever
                // the machine's speed.
                try await waitForLockWaiter(client)
                try await lock.query("COMMIT", logger: logger)
                var outcomes = [IngestOutcome?](repeating: nil, count: submissions.count)
                for try await (index, outcome) in group { outcomes[index] = outcome }
                return outcomes.map { $0! }
            }
        }
    }

    /// Runs `work` while another transaction holds the count row of `venue`; once `work` waits
    /// for it, reads which of `probing`'s count rows are free (``freeCounts(_:of:)``), then lets
    /// it go. Those free rows, and what `work` returned.
    static func whileCountHeld<T: Sendable>(
        _ client: PostgresClient, venue: Int64, probing: [Int64], _ work: @escaping @Sendable () async throws -> T
    ) async throws -> (free: [Int64], result: T) {
        try await client.withConnection { lock in
            try await lock.query("BEGIN", logger: logger)
            // Read to its end: the row is locked once the statement has completed.
            _ = try await lock.query(
                "SELECT 1 FROM venue_counts WHERE venue_id = \(venue) FOR UPDATE", logger: logger
            ).collect()
            async let result = work()
            try await waitForLockWaiter(client)
            let free = try await freeCounts(client, of: probing)
            try await lock.query("COMMIT", logger: logger)
            return (free, try await result)
        }
    }

    /// The venues among `venueIDs` whose count row no transaction holds, ascending: what
    /// `FOR UPDATE SKIP LOCKED` from a connection of its own can lock.
    static func freeCounts(_ client: PostgresClient, of venueIDs: [Int64]) async throws -> [Int64] {
        try await client.withConnection { probe in
            try await probe.query("BEGIN", logger: logger)
            var free: [Int64] = []
            for try await id in try await probe.query(
                "SELECT venue_id FROM venue_counts WHERE venue_id = ANY(\(venueIDs)) FOR UPDATE SKIP LOCKED",
                logger: logger
            ).decode(Int64.self) {
                free.append(id)
            }
            try await probe.query("ROLLBACK", logger: logger)
            return free.sorted()
        }
    }

    static func waitForLockWaiter(_ client: PostgresClient) async throws {
        for _ in 0..<6_000 {
            let waiting = try await client.query(
                "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND datname = current_database()",
                logger: logger
            ).decode(Int.self).first { _ in true }
            if (waiting ?? 0) > 0 { return }
            try await Task.sleep(for: .milliseconds(10))
        }
        Issue.record("no statement waited for the lock within a minute")
    }

    /// Seeds the venue and `devices` phones with one check-in each an hour earlier (so the cache
    /// knows them and the next ones take the grouped path): those submissions.
    static func seed(_ checkins: CheckinRepository, devices: Int, start: Date) async throws -> [CheckinSubmission] {
        var seeded: [CheckinSubmission] = []
        for device in 0..<devices {
            let submission = Self.submission(device: "phone-\(device)", start: start.addingTimeInterval(-3_600))
            guard case .created = try await checkins.ingest(submission, maxDistanceMetres: 250) else {
                throw StoreError.unexpected("seed not created")
            }
            seeded.append(submission)
        }
        return seeded
    }

    @Test("check-ins arriving together share a statement; each is stored once and answered with its own receipt")
    func together() async throws {
        try await withTestDatabase { client, _ in
            let checkins = CheckinRepository(client: client, logger: Self.logger, groupWindow: .milliseconds(500))
            let start = SubmissionFixture.previousHourStart
            _ = try await Self.seed(checkins, devices: 16, start: start)
            let submissions = (0..<16).map { Self.submission(device: "phone-\($0)", start: start) }
            let outcomes = try await Self.whileLocked(submissions, checkins, client)

            for (submission, outcome) in zip(submissions, outcomes) {
                guard case .created(let receipt) = outcome else {
                    Issue.record("\(submission.deviceID): \(outcome)")
                    continue
                }
                #expect(receipt.id == submission.id && receipt.status == .pending)
                #expect(receipt.venueExternalID == Self.venue && receipt.sampleCount == 300)
            }
            #expect(try await client.count("checkins") == 32)
            // The count the statement raised by a group's sum, and one queue entry a check-in.
            #expect(try await client.count("venue_counts", where: "checkins = 32") == 1)
            #expect(try await client.count("aggregation_queue", where: "checkin_id IS NOT NULL") == 32)
            // One statement's rows share its transaction's time: 16 check-ins in fewer commits.
            let commits = try await client.query(
                "SELECT count(DISTINCT received_at)::int FROM checkins WHERE started_at = \(start)",
                logger: Self.logger
            ).decode(Int.self).first { _ in true }
            #expect((commits ?? 16) < 16, "every check-in was written alone")
        }
    }

    @Test("a resend, a conflict and a month without its partition in one group: each its own answer")
    func mixed() async throws {
        try await withTestDatabase { client, _ in
            let checkins = CheckinRepository(client: client, logger: Self.logger, groupWindow: .milliseconds(500))
            let start = SubmissionFixture.previousHourStart
            let seeded = try await Self.seed(checkins, devices: 4, start: start)
            var originals: [UUID: Date] = [:]
            for try await (id, receivedAt) in try await client.query(
                "SELECT id, received_at FROM checkins", logger: Self.logger
            ).decode((UUID, Date).self) {
                originals[id] = receivedAt
            }

            let fresh = Self.submission(device: "phone-0", start: start)
            // The phone sends its check-in again (its answer was lost): the first receipt again.
            let resend = seeded[1]
            // Another check-in under a stored id: refused.
            var conflict = Self.submission(device: "phone-2", start: start, level: -20)
            conflict.id = seeded[2].id
            // A month that has no partition: its row fails the group's statement, is written
            // alone, fails again, and ingest makes the month and stores it.
            let old = Self.submission(device: "phone-3", start: CheckinPartitionTests.date("2020-02-10T20:00:00Z"))
            let outcomes = try await Self.whileLocked([fresh, resend, conflict, old], checkins, client)

            guard case .created(let created) = outcomes[0] else {
                Issue.record("fresh: \(outcomes[0])")
                return
            }
            #expect(created.id == fresh.id)
            guard case .duplicate(let again) = outcomes[1] else {
                Issue.record("resend: \(outcomes[1])")
                return
            }
            let firstReceived = originals[resend.id]
            #expect(again.id == resend.id && again.receivedAt == firstReceived)
            #expect(outcomes[2] == .conflict(id: conflict.id))
            guard case .created = outcomes[3] else {
                Issue.record("old month: \(outcomes[3])")
                return
            }
            #expect(try await CheckinPartitionTests.partitions(of: old.id, client) == ["checkins_2020_02"])
            // Four seeded, the fresh one and the old month's: nothing twice, nothing lost.
            #expect(try await client.count("checkins") == 6)
            #expect(try await client.count("checkin_ids") == 6)
            #expect(try await client.count("venue_counts", where: "checkins = 6") == 1)
        }
    }

    @Test("two check-ins of one phone or one id are never in one group, and both are answered")
    func onePhoneOnce() async throws {
        try await withTestDatabase { client, _ in
            let checkins = CheckinRepository(client: client, logger: Self.logger, groupWindow: .milliseconds(500))
            let start = SubmissionFixture.previousHourStart
            _ = try await Self.seed(checkins, devices: 2, start: start)
            let first = Self.submission(device: "phone-0", start: start)
            let second = Self.submission(device: "phone-0", start: start.addingTimeInterval(600))
            let third = Self.submission(device: "phone-1", start: start)
            let outcomes = try await Self.whileLocked([first, second, third, third], checkins, client)
            let created = outcomes.filter { if case .created = $0 { true } else { false } }.count
            let duplicates = outcomes.filter { if case .duplicate = $0 { true } else { false } }.count
            #expect(created == 3 && duplicates == 1, "\(outcomes)")
            #expect(try await client.count("checkins") == 5)
            #expect(try await client.count("venue_counts", where: "checkins = 5") == 1)
        }
    }

    @Test(
        "a group's statement locks its venues' counts in the order of their ids, so two groups never deadlock"
    )
    func venueCountsLockedInOrder() async throws {
        try await withTestDatabase { client, _ in
            let checkins = CheckinRepository(client: client, logger: Self.logger)
            let start = SubmissionFixture.previousHourStart
            // 20 venues, each with a count row and a phone of its own.
            var built: [IngestRow] = []
            for index in 0..<20 {
                let seed = SubmissionFixture.submission(
                    venue: "order-\(index)", timezone: "UTC", device: "order-phone-\(index)", levelDBFS: -30,
                    start: start.addingTimeInterval(-3_600))
                guard case .created = try await checkins.ingest(seed, maxDistanceMetres: 250) else {
                    throw StoreError.unexpected("seed not created")
                }
                let next = SubmissionFixture.submission(
                    venue: "order-\(index)", timezone: "UTC", device: "order-phone-\(index)", levelDBFS: -30,
                    start: start)
                let venue = try #require(
                    try await VenueRepository(client: client, logger: Self.logger).find(externalID: "order-\(index)"))
                let device = try #require(
                    try await client.query(
                        DeviceRepository.upsertQuery(clientID: next.deviceID, model: next.deviceModel),
                        logger: Self.logger
                    ).decode(Int64.self).first { _ in true })
                built.append(
                    try IngestRow(
                        next, venue: venue, deviceID: device,
                        verdict: .init(status: .pending, reasons: [], distanceMetres: nil)))
            }
            let rows = built.shuffled()
            let venueIDs = rows.map(\.venueID).sorted()
            let held = venueIDs[9]

            // Another transaction holds the count row of the 10th venue by id; the statement,
            // given its rows out of order, waits for it. Locking in order, it has by then locked
            // the 9 below it and none above: a statement that shares venues with it waits behind
            // it for the first they share, never holding one it needs.
            let (free, written) = try await Self.whileCountHeld(client, venue: held, probing: venueIDs) {
                try await IngestStatement.run(rows, client: client, logger: Self.logger)
            }
            #expect(free == Array(venueIDs[10...]), "locked: \(Set(venueIDs).subtracting(free).sorted())")
            #expect(written.count == 20)
            #expect(try await client.count("venue_counts", where: "checkins = 2") == 20)
        }
    }

    @Test("array literals quote what array_in would misread")
    func literals() async throws {
        try await withTestDatabase { client, _ in
            let labels = ["Speech", "a, b", "quote \" here", "back\\slash", "{braces}", "", "NULL"]
            let read = try await client.query(
                PostgresQuery(
                    unsafeSQL: "SELECT $1::text::text[]",
                    binds: {
                        var binds = PostgresBindings()
                        binds.append(ArrayLiteral.texts(labels))
                        return binds
                    }()), logger: Self.logger
            ).decode([String].self).first { _ in true }
            #expect(read == labels)
            let numbers = try await client.query(
                "SELECT \(ArrayLiteral.numbers([Int16(-3), 0, 1000]))::text::smallint[]", logger: Self.logger
            ).decode([Int16].self).first { _ in true }
            #expect(numbers == [-3, 0, 1000])
        }
    }
}
