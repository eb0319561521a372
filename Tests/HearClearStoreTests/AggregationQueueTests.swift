import Foundation
import HearClearStore
import HearClearTestSupport
import Logging
import PostgresNIO
import Testing

@Suite("Aggregation queue: SKIP LOCKED and advisory locks")
struct AggregationQueueTests {
    /// Drains the queue the way a worker does; returns how many venues it processed.
    private func drain(_ queue: AggregationQueue, log: WorkLog, pause: Duration) async throws -> Int {
        var skipping: Set<Int64> = []
        var processed = 0
        while true {
            let outcome = try await queue.processNext(skipping: skipping) { venueID, _ in
                await log.begin(venueID)
                try await Task.sleep(for: pause)
                await log.end(venueID)
            }
            switch outcome {
            case .processed: processed += 1
            case .busy(let venueID): skipping.insert(venueID)
            case .empty: return processed
            }
        }
    }

    @Test func twoWorkersProcessEachVenueOnceAndNeverTogether() async throws {
        try await withTestDatabase { client, _ in
            let queue = AggregationQueue(client: client, logger: QueueFixtures.logger)
            let venues = try await QueueFixtures.venues(12, on: client)
            // Three entries per venue, interleaved, as a burst of check-ins would leave them.
            for _ in 0..<3 {
                for venue in venues { try await queue.enqueue(venueID: venue) }
            }
            let log = WorkLog()

            async let first = drain(queue, log: log, pause: .milliseconds(30))
            async let second = drain(queue, log: log, pause: .milliseconds(30))
            let counts = try await [first, second]

            #expect(await log.overlaps.isEmpty)
            #expect(await log.processed.sorted() == venues.sorted())
            #expect(counts.reduce(0, +) == venues.count)
            #expect(try await QueueFixtures.queued(on: client) == 0)
        }
    }

    @Test func anEntryAddedDuringProcessingIsNotLost() async throws {
        try await withTestDatabase { client, _ in
            let queue = AggregationQueue(client: client, logger: QueueFixtures.logger)
            let venue = try #require(try await QueueFixtures.venues(1, on: client).first)
            try await queue.enqueue(venueID: venue)
            let log = WorkLog()

            let outcome = try await queue.processNext { venueID, _ in
                await log.begin(venueID)
                // A check-in arrives for this venue while it is being recomputed.
                try await queue.enqueue(venueID: venueID)
                await log.end(venueID)
            }
            let remaining = try await QueueFixtures.queued(on: client)
            let again = try await drain(queue, log: log, pause: .zero)

            #expect(outcome == .processed(venueID: venue))
            #expect(remaining == 1)
            #expect(again == 1)
            #expect(try await QueueFixtures.queued(on: client) == 0)
        }
    }

    @Test func aVenueHeldByOneWorkerIsBusyForAnother() async throws {
        try await withTestDatabase { client, _ in
            let queue = AggregationQueue(client: client, logger: QueueFixtures.logger)
            let venue = try #require(try await QueueFixtures.venues(1, on: client).first)
            try await queue.enqueue(venueID: venue)
            try await queue.enqueue(venueID: venue)

            let outcome = try await queue.processNext { venueID, _ in
                // This transaction locks the first entry; the second is free, but the venue's
                // advisory lock is taken, so another worker must leave it.
                let other = try await queue.processNext { _, _ in Issue.record("processed twice at once") }
                #expect(other == .busy(venueID: venueID))
            }
            let afterwards = try await queue.processNext { _, _ in }

            #expect(outcome == .processed(venueID: venue))
            #expect(afterwards == .empty)
        }
    }

    @Test func aFailedVenueStaysQueued() async throws {
        try await withTestDatabase { client, _ in
            let queue = AggregationQueue(client: client, logger: QueueFixtures.logger)
            let venue = try #require(try await QueueFixtures.venues(1, on: client).first)
            try await queue.enqueue(venueID: venue)
            struct Boom: Error {}

            await #expect(throws: AggregationQueue.VenueFailure.self) {
                try await queue.processNext { _, _ in throw Boom() }
            }

            #expect(try await QueueFixtures.queued(on: client) == 1)
        }
    }
}
