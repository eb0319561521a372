import Foundation
import HearClearModel
import HearClearTestSupport
import Logging
import PostgresNIO
import Testing

@testable import HearClearStore

@Suite("Aggregation queue: batches under advisory locks")
struct AggregationQueueTests {
    /// Drains the queue the way a worker does, `limit` venues a batch; returns how many venues it
    /// processed.
    private func drain(_ queue: AggregationQueue, log: WorkLog, limit: Int, pause: Duration) async throws -> Int {
        var skipping: Set<Int64> = []
        var processed = 0
        while true {
            let (batch, _) = try await queue.processNext(limit: limit, skipping: skipping) { claims, _ in
                for claim in claims { await log.begin(claim.venueID) }
                try await Task.sleep(for: pause)
                for claim in claims { await log.end(claim.venueID) }
            }
            if batch.isEmpty { return processed }
            processed += batch.processed.count
            skipping.formUnion(batch.busy)
        }
    }

    /// An entry as ingest makes it (`checkins_only`).
    @discardableResult
    private func enqueueFromIngest(_ venueID: Int64, on client: PostgresClient) async throws
        -> AggregationQueue.QueuedCheckin
    {
        let checkin = AggregationQueue.QueuedCheckin(
            id: UUID(), startedAt: Date(timeIntervalSince1970: (Date().timeIntervalSince1970).rounded()))
        try await client.query(
            """
            INSERT INTO aggregation_queue (venue_id, checkins_only, checkin_id, checkin_started_at)
            VALUES (\(venueID), true, \(checkin.id), \(checkin.startedAt))
            """,
            logger: QueueFixtures.logger)
        return checkin
    }

    @Test(arguments: [1, 5])
    func twoWorkersProcessEachVenueOnceAndNeverTogether(limit: Int) async throws {
        try await withTestDatabase { client, _ in
            let queue = AggregationQueue(client: client, logger: QueueFixtures.logger)
            let venues = try await QueueFixtures.venues(12, on: client)
            // Three entries per venue, interleaved, as a burst of check-ins would leave them.
            for _ in 0..<3 {
                for venue in venues { try await queue.enqueue(venueID: venue) }
            }
            let log = WorkLog()

            async let first = drain(queue, log: log, limit: limit, pause: .milliseconds(30))
            async let second = drain(queue, log: log, limit: limit, pause: .milliseconds(30))
            let counts = try await [first, second]

            #expect(await log.overlaps.isEmpty)
            #expect(await log.processed.sorted() == venues.sorted())
            #expect(counts.reduce(0, +) == venues.count)
            #expect(try await QueueFixtures.queued(on: client) == 0)
        }
    }

    @Test("a batch takes up to its limit of venues, oldest entry first, and says which entries were all from ingest")
    func batchOrderAndClaims() async throws {
        try await withTestDatabase { client, _ in
            let queue = AggregationQueue(client: client, logger: QueueFixtures.logger)
            let venues = try await QueueFixtures.venues(4, on: client)
            // Oldest first: 2 (ingest), 0 (ingest, then an admin change), 3 (ingest), 1 (admin).
            let fromTwo = try await enqueueFromIngest(venues[2], on: client)
            try await enqueueFromIngest(venues[0], on: client)
            try await queue.enqueue(venueID: venues[0])
            let fromThree = try await enqueueFromIngest(venues[3], on: client)
            try await queue.enqueue(venueID: venues[1])
            let fromThreeAgain = try await enqueueFromIngest(venues[3], on: client)

            let (first, claims) = try await queue.processNext(limit: 3) { claims, _ in claims }
            let (second, rest) = try await queue.processNext(limit: 3) { claims, _ in claims }
            let (third, none) = try await queue.processNext(limit: 3) { claims, _ in claims }

            #expect(first == AggregationQueue.Batch(processed: [venues[2], venues[0], venues[3]]))
            #expect(
                claims == [
                    .init(venueID: venues[2], checkinsOnly: true, newCheckins: [fromTwo]),
                    .init(venueID: venues[0], checkinsOnly: false),
                    .init(venueID: venues[3], checkinsOnly: true, newCheckins: [fromThree, fromThreeAgain]),
                ])
            // A venue read in full is told of no check-ins in particular.
            #expect(claims?[1].newCheckins == [])
            #expect(second == AggregationQueue.Batch(processed: [venues[1]]))
            #expect(rest == [.init(venueID: venues[1], checkinsOnly: false)])
            #expect(third.isEmpty)
            #expect(none == nil)
        }
    }

    @Test("a neighbour's re-judgement reads from memory; an ingest entry naming no check-in reads in full")
    func rejudgedAndOlderIngestEntries() async throws {
        try await withTestDatabase { client, _ in
            let queue = AggregationQueue(client: client, logger: QueueFixtures.logger)
            let venues = try await QueueFixtures.venues(3, on: client)
            // 0: a neighbour's change only. 1: a neighbour's change, then a check-in. 2: a check-in
            // queued by a server of before migration 0023 (no check-in named).
            let queueing = AggregationQueue.enqueueing(from: "moved", .rejudged)
            for venue in venues.prefix(2) {
                try await client.query(
                    """
                    WITH moved AS (SELECT \(venue)::int8 AS venue_id),
                    \(unescaped: queueing.definitions)
                    SELECT \(unescaped: queueing.sentCount)
                    """,
                    logger: QueueFixtures.logger)
            }
            let added = try await enqueueFromIngest(venues[1], on: client)
            try await client.query(
                "INSERT INTO aggregation_queue (venue_id, checkins_only) VALUES (\(venues[2]), true)",
                logger: QueueFixtures.logger)

            let (_, claims) = try await queue.processNext(limit: 3) { claims, _ in claims }
            #expect(
                claims == [
                    .init(venueID: venues[0], checkinsOnly: true, newCheckins: []),
                    .init(venueID: venues[1], checkinsOnly: true, newCheckins: [added]),
                    .init(venueID: venues[2], checkinsOnly: false),
                ])
        }
    }

    @Test func anEntryAddedDuringProcessingIsNotLost() async throws {
        try await withTestDatabase { client, _ in
            let queue = AggregationQueue(client: client, logger: QueueFixtures.logger)
            let venue = try #require(try await QueueFixtures.venues(1, on: client).first)
            try await queue.enqueue(venueID: venue)
            let log = WorkLog()

            let (batch, _) = try await queue.processNext { claims, _ in
                // A check-in arrives for this venue while it is being recomputed.
                for claim in claims { try await queue.enqueue(venueID: claim.venueID) }
            }
            let remaining = try await QueueFixtures.queued(on: client)
            let again = try await drain(queue, log: log, limit: 8, pause: .zero)

            #expect(batch == AggregationQueue.Batch(processed: [venue]))
            #expect(remaining == 1)
            #expect(again == 1)
            #expect(try await QueueFixtures.queued(on: client) == 0)
        }
    }

    @Test func venuesHeldByOneWorkerAreBusyForAnother() async throws {
        try await withTestDatabase { client, _ in
            let queue = AggregationQueue(client: client, logger: QueueFixtures.logger)
            let venues = try await QueueFixtures.venues(3, on: client)
            for venue in venues + venues { try await queue.enqueue(venueID: venue) }

            let (outcome, inner) = try await queue.processNext(limit: 2) { claims, _ in
                // The first two venues are locked by this transaction: another worker finds them
                // busy, and with them skipped takes the third.
                let (other, _) = try await queue.processNext(limit: 2) { _, _ in
                    Issue.record("processed twice at once")
                }
                let (third, _) = try await queue.processNext(limit: 2, skipping: Set(other.busy)) { _, _ in }
                return (other, third)
            }
            let (afterwards, _) = try await queue.processNext(limit: 2) { _, _ in }

            #expect(outcome == AggregationQueue.Batch(processed: [venues[0], venues[1]]))
            #expect(inner?.0 == AggregationQueue.Batch(busy: [venues[0], venues[1]]))
            #expect(inner?.1 == AggregationQueue.Batch(processed: [venues[2]]))
            #expect(afterwards.isEmpty)
        }
    }

    @Test func aFailedBatchStaysQueued() async throws {
        try await withTestDatabase { client, _ in
            let queue = AggregationQueue(client: client, logger: QueueFixtures.logger)
            let venues = try await QueueFixtures.venues(2, on: client)
            for venue in venues { try await queue.enqueue(venueID: venue) }
            struct Boom: Error {}

            let failure = await #expect(throws: AggregationQueue.VenueFailure.self) {
                try await queue.processNext(limit: 5) { _, _ in throw Boom() }
            }

            #expect(failure?.venueIDs == venues)
            #expect(try await QueueFixtures.queued(on: client) == 2)
        }
    }
}
