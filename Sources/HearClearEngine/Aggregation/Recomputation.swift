import HearClearStore
import Logging
import PostgresNIO

/// Check-ins judged again from the start, for `hearclear recompute` (after a change of method):
/// their stored cleaning is forgotten and their venues are judged here. Running servers on the
/// same database share the work safely: a venue is never processed twice at once.
public struct Recomputation: Sendable {
    let queue: AggregationQueue
    let aggregator: Aggregator

    init(client: PostgresClient, logger: Logger) {
        queue = AggregationQueue(client: client, logger: logger)
        // Each venue is judged once here: nothing to remember.
        aggregator = Aggregator(client: client, logger: logger, memoryCapacity: 0)
    }

    /// Judges the venue with external id `externalID` again, now; false when there is none.
    public func venue(externalID: String) async throws -> Bool {
        guard let key = try await queue.venueKey(externalID: externalID) else { return false }
        try await queue.forgetCleaning(venueID: key)
        try await aggregator.recompute(venueID: key)
        return true
    }

    /// Forgets every stored cleaning and queues every venue with check-ins; how many venues wait.
    public func queueAll() async throws -> Int {
        try await queue.forgetCleaning()
        try await queue.enqueueAll()
        return try await queue.pendingVenueCount()
    }

    /// Judges queued venues here, 16 at a time, until none is left that no one else holds: then,
    /// while others hold some, it looks again every 200 ms. `progress` hears the count judged here
    /// so far after each batch that judged any. Returns that count.
    public func processQueued(progress: (Int) -> Void) async throws -> Int {
        var processed = 0
        var busy: Set<Int64> = []
        while true {
            let batch = try await aggregator.processNext(limit: 16, skipping: busy)
            processed += batch.processed.count
            busy.formUnion(batch.busy)
            if !batch.processed.isEmpty { progress(processed) }
            if batch.isEmpty {
                guard !busy.isEmpty, try await queue.pendingVenueCount() > 0 else { return processed }
                busy = []
                try await Task.sleep(for: .milliseconds(200))
            }
        }
    }
}
