import Foundation
import HearClearModel
import Logging
import PostgresNIO

/// The venues waiting for aggregation (`aggregation_queue`, filled by ingest) and the locking that
/// lets any number of workers share it: a venue is taken with `pg_try_advisory_xact_lock(venue_id)`,
/// so no venue is processed by two workers at once, and only the holder of a venue's lock deletes
/// its entries (ingest only inserts), so nobody ever waits on a queue row. A worker takes a batch
/// of venues at a time: everything it does for them happens in one transaction, which ends by
/// deleting exactly the queue entries it saw when it took them. An entry added meanwhile stays
/// queued, so no venue is ever lost.
public struct AggregationQueue: Sendable {
    /// A check-in an ingest entry names (migration 0023): its id and the start that finds its
    /// month's partition.
    public struct QueuedCheckin: Sendable, Hashable {
        public let id: UUID
        public let startedAt: Date

        public init(id: UUID, startedAt: Date) {
            self.id = id
            self.startedAt = startedAt
        }
    }

    /// A venue taken for processing.
    public struct Claim: Sendable, Equatable {
        public let venueID: Int64
        /// Every entry seen came from ingest, naming its check-in, or from a neighbour's change
        /// (`rejudge`): only the check-ins in ``newCheckins`` were added, so a worker that
        /// remembers the venue may read just those.
        public let checkinsOnly: Bool
        /// The check-ins the entries seen name, oldest entry first (empty unless ``checkinsOnly``).
        public let newCheckins: [QueuedCheckin]

        public init(venueID: Int64, checkinsOnly: Bool, newCheckins: [QueuedCheckin] = []) {
            self.venueID = venueID
            self.checkinsOnly = checkinsOnly
            self.newCheckins = checkinsOnly ? newCheckins : []
        }
    }

    /// What one attempt to take work found.
    public typealias Batch = AggregationBatch

    /// Thrown by ``processNext(limit:skipping:_:)`` when the work for a batch failed; the
    /// transaction was rolled back, so its venues stay queued.
    public struct VenueFailure: Error, CustomStringConvertible {
        public let venueIDs: [Int64]
        public let underlying: any Error
        public var description: String {
            "venue\(venueIDs.count == 1 ? "" : "s") \(venueIDs.map(String.init).joined(separator: ", ")): "
                + String(reflecting: underlying)
        }
    }

    /// Works on the claimed venues inside the transaction that holds their locks.
    public typealias Work<Output> =
        @Sendable (_ claims: [Claim], _ connection: PostgresConnection) async throws -> Output

    let client: PostgresClient
    let logger: Logger

    public init(client: PostgresClient, logger: Logger) {
        self.client = client
        self.logger = logger
    }

    /// Takes up to `limit` venues, oldest queued entry first, that are not in `skipping` and that
    /// no other worker holds; runs `work` for them and removes the entries seen, all in one
    /// transaction. `work`'s output is returned once the transaction has committed; it is `nil`
    /// when no venue was taken.
    public func processNext<Output: Sendable>(
        limit: Int = 1, skipping: Set<Int64> = [], _ work: Work<Output>
    ) async throws -> (batch: Batch, output: Output?) {
        try await client.transaction(logger: logger) { connection in
            var batch = Batch()
            let locked = try await lockCandidates(
                limit: limit, skipping: skipping, busy: &batch.busy, on: connection)
            guard !locked.isEmpty else { return (batch, nil) }
            let queued = try await entries(of: locked, on: connection)
            var claims: [Claim] = []
            var seen: [Int64] = []
            for venueID in locked {
                guard let entry = queued[venueID] else {
                    batch.busy.append(venueID)
                    continue
                }
                claims.append(Claim(venueID: venueID, checkinsOnly: entry.checkinsOnly, newCheckins: entry.checkins))
                seen += entry.ids
                batch.processed.append(venueID)
            }
            guard !claims.isEmpty else { return (batch, nil) }
            let output: Output
            do {
                output = try await work(claims, connection)
                try await connection.query("DELETE FROM aggregation_queue WHERE id = ANY(\(seen))", logger: logger)
            } catch {
                throw VenueFailure(venueIDs: claims.map(\.venueID), underlying: error)
            }
            return (batch, output)
        }
    }

    /// Locks the first `limit` queued venues not in `skipping` that no other worker holds; those
    /// held go to `busy`. The candidates are chosen (and limited) before any lock is tried, so no
    /// venue beyond them is locked; each free one is locked in the same statement.
    private func lockCandidates(
        limit: Int, skipping: Set<Int64>, busy: inout [Int64], on connection: PostgresConnection
    ) async throws -> [Int64] {
        let candidates = try await connection.query(
            """
            WITH candidates AS MATERIALIZED (
                SELECT venue_id, min(id) AS first FROM aggregation_queue WHERE venue_id <> ALL(\(Array(skipping)))
                GROUP BY venue_id ORDER BY min(id) LIMIT \(max(1, limit)))
            SELECT venue_id, pg_try_advisory_xact_lock(venue_id) FROM candidates ORDER BY first
            """,
            logger: logger)
        var locked: [Int64] = []
        for try await (venueID, isLocked) in candidates.decode((Int64, Bool).self) {
            if isLocked { locked.append(venueID) } else { busy.append(venueID) }
        }
        return locked
    }

    /// The queued entries of the `locked` venues, read again now that the locks are held: the
    /// choosing statement's snapshot may predate another worker's commit, and only a lock holder
    /// deletes a venue's entries. A venue whose entries are gone was just processed by another
    /// worker (it has none here). An ingest entry that names no check-in (a server of before
    /// migration 0023) has its venue read in full.
    private func entries(of locked: [Int64], on connection: PostgresConnection) async throws
        -> [Int64: (ids: [Int64], checkinsOnly: Bool, checkins: [QueuedCheckin])]
    {
        let entries = try await connection.query(
            """
            SELECT venue_id, array_agg(id ORDER BY id),
                   bool_and(checkins_only AND (checkin_id IS NOT NULL OR rejudge)),
                   array_agg(checkin_id ORDER BY id) FILTER (WHERE checkin_id IS NOT NULL),
                   array_agg(checkin_started_at ORDER BY id) FILTER (WHERE checkin_id IS NOT NULL)
            FROM aggregation_queue
            WHERE venue_id = ANY(\(locked)) GROUP BY venue_id
            """,
            logger: logger)
        var queued: [Int64: (ids: [Int64], checkinsOnly: Bool, checkins: [QueuedCheckin])] = [:]
        for try await (venueID, ids, only, checkinIDs, starts) in entries.decode(
            (Int64, [Int64], Bool, [UUID]?, [Date]?).self)
        {
            let checkins = zip(checkinIDs ?? [], starts ?? []).map { QueuedCheckin(id: $0, startedAt: $1) }
            queued[venueID] = (ids, only, checkins)
        }
        return queued
    }

    /// Processes one venue now, in full, waiting for another worker that holds it, whether queued
    /// or not.
    public func process<Output: Sendable>(venueID: Int64, _ work: Work<Output>) async throws -> Output {
        try await client.transaction(logger: logger) { connection in
            try await connection.query("SELECT pg_advisory_xact_lock(\(venueID))", logger: logger)
            let rows = try await connection.query(
                "SELECT id FROM aggregation_queue WHERE venue_id = \(venueID)", logger: logger)
            var seen: [Int64] = []
            for try await id in rows.decode(Int64.self) { seen.append(id) }
            let output = try await work([Claim(venueID: venueID, checkinsOnly: false)], connection)
            if !seen.isEmpty {
                try await connection.query("DELETE FROM aggregation_queue WHERE id = ANY(\(seen))", logger: logger)
            }
            return output
        }
    }

    /// Queues one venue (and wakes the workers).
    public func enqueue(venueID: Int64) async throws {
        let queueing = Self.enqueueing(from: "venue")
        try await client.query(
            """
            WITH venue AS (SELECT \(venueID)::int8 AS venue_id), \(unescaped: queueing.definitions)
            SELECT \(unescaped: queueing.sentCount)
            """,
            logger: logger)
    }

    /// Makes the next judgement of one venue (or of all) clean its check-ins again instead of
    /// reusing their stored cleaning: for a recompute after a change of method. The caller queues
    /// or recomputes the venues. A check-in whose samples are removed keeps its cleaning.
    public func forgetCleaning(venueID: Int64? = nil) async throws {
        try await client.query(
            """
            UPDATE checkins SET cleaned_at = NULL
            WHERE venue_id = COALESCE(\(venueID), venue_id) AND cleaned_at IS NOT NULL
              AND samples_removed_at IS NULL
            """,
            logger: logger)
    }

    /// Queues every venue that has check-ins; returns how many.
    @discardableResult
    public func enqueueAll() async throws -> Int {
        let queueing = Self.enqueueing(from: "checked_in", oneNotification: true)
        let rows = try await client.query(
            """
            WITH checked_in AS (
                SELECT v.id AS venue_id FROM venues v WHERE EXISTS (SELECT 1 FROM checkins c WHERE c.venue_id = v.id)
                ORDER BY v.id),
            \(unescaped: queueing.definitions)
            SELECT \(unescaped: queueing.sentCount)
            """,
            logger: logger)
        var count = 0
        for try await queued in rows.decode(Int.self) { count = queued }
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
