import Foundation
import HearClearModel
import Logging
import LoudnessCore
import PostgresNIO

/// Check-ins: ingest (idempotent on the client's id) and reads.
public struct CheckinRepository: Sendable {
    /// Decides a new check-in's first status from its venue (the engine's intake rule).
    public typealias FirstJudgement = @Sendable (Venue) -> IntakeRule.Verdict

    let client: PostgresClient
    let logger: Logger
    let cache: IngestCache
    /// Writes check-ins of known venues and devices together; nil: each alone.
    let groups: IngestGroups?

    /// - Parameters:
    ///   - cache: share it with the `VenueRepository` so a venue update is seen at once.
    ///   - groupWindow: how long a check-in may wait for others while a group is being written
    ///     (``IngestGroups``); zero: each is written alone.
    public init(
        client: PostgresClient, logger: Logger, cache: IngestCache = IngestCache(), groupWindow: Duration = .zero
    ) {
        self.client = client
        self.logger = logger
        self.cache = cache
        groups = groupWindow > .zero ? IngestGroups(client: client, logger: logger, window: groupWindow) : nil
    }

    /// Stores the check-in, its device and (when needed) its venue, and enqueues the venue for
    /// aggregation, all in one transaction. `firstJudgement` gives the check-in's status and
    /// reasons at receipt from its venue.
    public func ingest(_ submission: CheckinSubmission, firstJudgement: FirstJudgement) async throws -> IngestOutcome {
        let inserted: CheckinReceipt?
        do {
            inserted = try await store(submission, firstJudgement: firstJudgement)
        } catch  where CheckinPartitions.isMissingPartition(error) {
            // A month without its partition yet (the server makes them ahead; an old check-in's
            // month may have none): made, then the check-in stored as if it had been there.
            try await CheckinPartitions(client: client, logger: logger).make(for: submission.startedAt)
            inserted = try await store(submission, firstJudgement: firstJudgement)
        }
        if let inserted { return .created(inserted) }
        // The id is taken; its check-in is gone only with a detached (archived) month, and a
        // resend of that is no new check-in either.
        guard let stored = try await storedContent(id: submission.id) else { return .conflict(id: submission.id) }
        // The location is compared by the distance it gives from the venue (coordinates are not kept).
        let venue: Venue?
        if let cached = cache.venue(submission.venue.externalID) {
            venue = cached
        } else {
            venue = try await VenueRepository(client: client, logger: logger, cache: cache)
                .find(externalID: submission.venue.externalID)
        }
        let distance = venue.flatMap { firstJudgement($0).distanceMetres }
        return stored.matches(submission, distanceMetres: distance)
            ? .duplicate(stored.receipt) : .conflict(id: submission.id)
    }

    /// Stores the check-in (with its device and venue when they are new to the cache); nil when its
    /// id is already taken.
    private func store(_ submission: CheckinSubmission, firstJudgement: FirstJudgement) async throws
        -> CheckinReceipt?
    {
        if let venue = cache.venue(submission.venue.externalID),
            let deviceID = cache.device(submission.deviceID, model: submission.deviceModel)
        {
            // Fast path: one statement, its own transaction, shared with the check-ins arriving
            // with it when grouping is on.
            let row = try IngestRow(submission, venue: venue, deviceID: deviceID, verdict: firstJudgement(venue))
            if let groups { return try await groups.write(row) }
            return try await IngestStatement.run([row], client: client, logger: logger)[row.id]
        } else {
            // Run again when PostgreSQL broke a deadlock by rolling it back (``RolledBack``).
            let stored = try await RolledBack.retrying("a check-in's transaction", logger: logger) {
                try await storeResolving(submission, firstJudgement: firstJudgement)
            }
            // Remembered only after COMMIT: another request may use these keys at once.
            if let (_, venue, deviceID) = stored {
                cache.remember(venue)
                cache.remember(device: deviceID, clientID: submission.deviceID, model: submission.deviceModel)
            }
            return stored?.0
        }
    }

    /// Stores the check-in in a transaction that first finds or creates its venue and device: its
    /// receipt, venue and device key, or nil when its id is already taken.
    private func storeResolving(_ submission: CheckinSubmission, firstJudgement: FirstJudgement) async throws
        -> (CheckinReceipt, Venue, Int64)?
    {
        try await client.transaction(logger: logger) { connection in
            let venue = try await resolveVenue(submission.venue, on: connection)
            let deviceID = try await connection.query(
                DeviceRepository.upsertQuery(clientID: submission.deviceID, model: submission.deviceModel),
                logger: logger
            ).decode(Int64.self).first { _ in true }
            guard let deviceID else { throw StoreError.unexpected("device upsert returned no row") }
            let row = try IngestRow(
                submission, venue: venue, deviceID: deviceID, verdict: firstJudgement(venue))
            guard let receipt = try await IngestStatement.run([row], on: connection, logger: logger)[row.id]
            else { throw DuplicateSignal() }
            return (receipt, venue, deviceID)
        } catchDuplicate: {
            nil
        }
    }

    /// The venue of a check-in: found, else created from the details the check-in carries.
    private func resolveVenue(_ reference: CheckinSubmission.VenueReference, on connection: PostgresConnection)
        async throws -> Venue
    {
        let venues = VenueRepository(client: client, logger: logger, cache: cache)
        if let venue = try await venues.find(externalID: reference.externalID, on: connection) { return venue }
        guard let details = reference.details else {
            throw IngestError.unknownVenue(externalID: reference.externalID)
        }
        return try await venues.createIfMissing(externalID: reference.externalID, details: details, on: connection)
    }
}

/// Thrown inside the ingest transaction when the id already exists, to roll it back.
struct DuplicateSignal: Error {}

extension PostgresClient {
    /// `transaction`, mapping a `DuplicateSignal` from `body` to `onDuplicate()`.
    func transaction<Result: Sendable>(
        logger: Logger, _ body: (PostgresConnection) async throws -> Result,
        catchDuplicate onDuplicate: () -> Result
    ) async throws -> Result {
        do {
            return try await transaction(logger: logger, body)
        } catch is DuplicateSignal {
            return onDuplicate()
        }
    }
}
