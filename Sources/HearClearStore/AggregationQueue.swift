import Foundation
import Logging
import PostgresNIO

/// The venues waiting for aggregation (`aggregation_queue`, filled by ingest) and the locking that
/// lets any number of workers share it: a queue row is taken with `FOR UPDATE SKIP LOCKED`, the
/// venue with `pg_try_advisory_xact_lock(venue_id)`, so no venue is processed by two workers at
/// once. Everything a worker does for a venue happens in one transaction, which ends by deleting
/// exactly the queue entries it saw before reading the check-ins: an entry added meanwhile stays
/// queued, so no venue is ever lost.
public struct AggregationQueue: Sendable {
    /// What one attempt to take work found.
    public enum Outcome: Sendable, Equatable {
        /// The venue was processed and its entries removed.
        case processed(venueID: Int64)
        /// The oldest available entry's venue is being processed by another worker.
        case busy(venueID: Int64)
        /// Nothing (else) is queued.
        case empty
    }

    /// Thrown by ``processNext(skipping:_:)`` when the work for a venue failed; the transaction
    /// was rolled back, so the venue stays queued.
    public struct VenueFailure: Error, CustomStringConvertible {
        public let venueID: Int64
        public let underlying: any Error
        public var description: String { "venue \(venueID): \(String(reflecting: underlying))" }
    }

    /// Works on one venue inside the transaction that holds its lock.
    public typealias Work = @Sendable (_ venueID: Int64, _ connection: PostgresConnection) async throws -> Void

    let client: PostgresClient
    let logger: Logger

    public init(client: PostgresClient, logger: Logger) {
        self.client = client
        self.logger = logger
    }

    /// Takes the oldest queued venue not in `skipping` that no other worker holds, runs `work`
    /// for it and removes the entries seen, all in one transaction.
    public func processNext(skipping: Set<Int64> = [], _ work: Work) async throws -> Outcome {
        try await client.transaction(logger: logger) { connection in
            let candidates = try await connection.query(
                """
                SELECT venue_id FROM aggregation_queue WHERE venue_id <> ALL(\(Array(skipping)))
                ORDER BY id LIMIT 1 FOR UPDATE SKIP LOCKED
                """,
                logger: logger)
            var venueID: Int64?
            for try await id in candidates.decode(Int64.self) { venueID = id }
            guard let venueID else { return .empty }
            guard try await tryLock(venueID: venueID, on: connection) else { return .busy(venueID: venueID) }
            do {
                try await process(venueID: venueID, on: connection, work)
            } catch {
                throw VenueFailure(venueID: venueID, underlying: error)
            }
            return .processed(venueID: venueID)
        }
    }

    /// Processes one venue now, waiting for another worker that holds it, whether queued or not.
    public func process(venueID: Int64, _ work: Work) async throws {
        try await client.transaction(logger: logger) { connection in
            try await connection.query("SELECT pg_advisory_xact_lock(\(venueID))", logger: logger)
            try await process(venueID: venueID, on: connection, work)
        }
    }

    private func process(venueID: Int64, on connection: PostgresConnection, _ work: Work) async throws {
        let seen = try await connection.query(
            "SELECT id FROM aggregation_queue WHERE venue_id = \(venueID)", logger: logger)
        var ids: [Int64] = []
        for try await id in seen.decode(Int64.self) { ids.append(id) }
        try await work(venueID, connection)
        if !ids.isEmpty {
            try await connection.query("DELETE FROM aggregation_queue WHERE id = ANY(\(ids))", logger: logger)
        }
    }

    private func tryLock(venueID: Int64, on connection: PostgresConnection) async throws -> Bool {
        let rows = try await connection.query("SELECT pg_try_advisory_xact_lock(\(venueID))", logger: logger)
        for try await locked in rows.decode(Bool.self) { return locked }
        return false
    }

    /// Queues one venue (and wakes the workers).
    public func enqueue(venueID: Int64) async throws {
        try await client.query(
            """
            WITH queued AS (INSERT INTO aggregation_queue (venue_id) VALUES (\(venueID)) RETURNING venue_id)
            SELECT pg_notify(\(CheckinRepository.aggregationChannel), venue_id::text) FROM queued
            """,
            logger: logger)
    }

    /// Makes the next judgement of one venue (or of all) clean its check-ins again instead of
    /// reusing their stored cleaning: for a recompute after a change of method.
    public func forgetCleaning(venueID: Int64? = nil) async throws {
        if let venueID {
            try await client.query("UPDATE checkins SET cleaned_at = NULL WHERE venue_id = \(venueID)", logger: logger)
        } else {
            try await client.query("UPDATE checkins SET cleaned_at = NULL WHERE cleaned_at IS NOT NULL", logger: logger)
        }
    }

    /// Queues every venue that has check-ins; returns how many.
    @discardableResult
    public func enqueueAll() async throws -> Int {
        let rows = try await client.query(
            """
            WITH queued AS (
                INSERT INTO aggregation_queue (venue_id)
                SELECT v.id FROM venues v WHERE EXISTS (SELECT 1 FROM checkins c WHERE c.venue_id = v.id)
                ORDER BY v.id
                RETURNING venue_id)
            SELECT count(*) FROM queued
            """,
            logger: logger)
        var count = 0
        for try await queued in rows.decode(Int.self) { count = queued }
        try await client.query("SELECT pg_notify(\(CheckinRepository.aggregationChannel), '*')", logger: logger)
        return count
    }

    /// Distinct venues waiting.
    public func pendingVenueCount() async throws -> Int {
        let rows = try await client.query("SELECT count(DISTINCT venue_id) FROM aggregation_queue", logger: logger)
        for try await count in rows.decode(Int.self) { return count }
        return 0
    }

    /// The venue key of an external id, when the venue exists.
    public func venueKey(externalID: String) async throws -> Int64? {
        let rows = try await client.query("SELECT id FROM venues WHERE external_id = \(externalID)", logger: logger)
        for try await id in rows.decode(Int64.self) { return id }
        return nil
    }
}
