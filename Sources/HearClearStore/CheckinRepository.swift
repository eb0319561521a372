import Foundation
import Logging
import PostgresNIO

/// Check-ins: ingest (idempotent on the client's id) and reads.
public struct CheckinRepository: Sendable {
    /// The NOTIFY channel the aggregation worker listens on; the payload is the venue key.
    public static let aggregationChannel = "hearclear_aggregation"

    let client: PostgresClient
    let logger: Logger
    let cache: IngestCache

    /// - Parameter cache: share it with the `VenueRepository` so a venue update is seen at once.
    public init(client: PostgresClient, logger: Logger, cache: IngestCache = IngestCache()) {
        self.client = client
        self.logger = logger
        self.cache = cache
    }

    /// Stores the check-in, its device and (when needed) its venue, and enqueues the venue for
    /// aggregation, all in one transaction. A check-in whose `location` is farther than
    /// `maxDistanceMetres` from the venue is stored as `excluded` (`too_far_from_venue`).
    public func ingest(_ submission: CheckinSubmission, maxDistanceMetres: Double) async throws -> IngestOutcome {
        let inserted: CheckinReceipt?
        if let venue = cache.venue(submission.venue.externalID),
            let deviceID = cache.device(submission.deviceID, model: submission.deviceModel)
        {
            // Fast path: one statement, its own transaction.
            inserted = try await client.withConnection { connection in
                try await insert(
                    submission, venue: venue, deviceID: deviceID, maxDistanceMetres: maxDistanceMetres, on: connection)
            }
        } else {
            let stored: (CheckinReceipt, Venue, Int64)? = try await client.transaction(logger: logger) { connection in
                let venue = try await resolveVenue(submission.venue, on: connection)
                let deviceID = try await connection.query(
                    DeviceRepository.upsertQuery(clientID: submission.deviceID, model: submission.deviceModel),
                    logger: logger
                ).decode(Int64.self).first { _ in true }
                guard let deviceID else { throw StoreError.unexpected("device upsert returned no row") }
                let receipt = try await insert(
                    submission, venue: venue, deviceID: deviceID, maxDistanceMetres: maxDistanceMetres, on: connection
                )
                guard let receipt else { throw DuplicateSignal() }
                return (receipt, venue, deviceID)
            } catchDuplicate: {
                nil
            }
            // Remembered only after COMMIT: another request may use these keys at once.
            if let (_, venue, deviceID) = stored {
                cache.remember(venue)
                cache.remember(device: deviceID, clientID: submission.deviceID, model: submission.deviceModel)
            }
            inserted = stored?.0
        }
        if let inserted { return .created(inserted) }
        guard let stored = try await storedContent(id: submission.id) else {
            throw StoreError.unexpected("check-in \(submission.id) conflicted but cannot be read")
        }
        return stored.matches(submission) ? .duplicate(stored.receipt) : .conflict(id: submission.id)
    }

    /// Inserts the check-in and queues its venue; nil when the id already exists.
    private func insert(
        _ submission: CheckinSubmission, venue: Venue, deviceID: Int64, maxDistanceMetres: Double,
        on connection: PostgresConnection
    ) async throws -> CheckinReceipt? {
        var distance: Double?
        var reasons: [String] = []
        if let location = submission.location {
            let metres = greatCircleDistanceMetres(
                fromLatitude: location.latitude, longitude: location.longitude,
                toLatitude: venue.latitude, longitude: venue.longitude
            )
            distance = metres
            if metres > maxDistanceMetres { reasons.append("too_far_from_venue") }
        }
        let status = reasons.isEmpty ? "pending" : "excluded"
        let rows = try await connection.query(
            Self.insertQuery(
                submission, venueID: venue.id, deviceID: deviceID, distance: distance, status: status, reasons: reasons
            ),
            logger: logger
        )
        guard let receivedAt = try await rows.decode(Date.self).first(where: { _ in true }) else { return nil }
        return CheckinReceipt(
            id: submission.id, venueExternalID: venue.externalID, status: status, reasons: reasons,
            receivedAt: receivedAt, sampleCount: submission.averageDBFS.count
        )
    }

    private func resolveVenue(_ reference: CheckinSubmission.VenueReference, on connection: PostgresConnection)
        async throws -> Venue
    {
        let select: PostgresQuery =
            "SELECT \(unescaped: VenueRepository.columns) FROM venues WHERE external_id = \(reference.externalID)"
        if let row = try await connection.query(select, logger: logger).decode(VenueRow.self).first(where: { _ in true }
        ) {
            return Venue(row)
        }
        guard let details = reference.details else {
            throw IngestError.unknownVenue(externalID: reference.externalID)
        }
        try await connection.query(
            """
            INSERT INTO venues (external_id, name, latitude, longitude, timezone, address, category)
            VALUES (\(reference.externalID), \(details.name), \(details.latitude), \(details.longitude),
                    \(details.timezone), \(details.address), \(details.category))
            ON CONFLICT (external_id) DO NOTHING
            """,
            logger: logger
        )
        // Read committed: this statement sees a row a concurrent transaction just committed.
        guard
            let row = try await connection.query(select, logger: logger).decode(VenueRow.self).first(where: { _ in true
            })
        else { throw StoreError.unexpected("venue \(reference.externalID) missing after insert") }
        return Venue(row)
    }

    static func insertQuery(
        _ s: CheckinSubmission, venueID: Int64, deviceID: Int64, distance: Double?, status: String, reasons: [String]
    ) -> PostgresQuery {
        """
        WITH inserted AS (
            INSERT INTO checkins (
                id, venue_id, device_id, source, started_at, ended_at, sample_count, offsets_s, utc_offsets_min,
                average_dbfs, peak_dbfs, zone_guessed, location_latitude, location_longitude,
                location_accuracy_m, distance_m, receipt_status, receipt_reasons, status, reasons)
            VALUES (
                \(s.id), \(venueID), \(deviceID), \(s.source.rawValue), \(s.startedAt), \(s.endedAt),
                \(s.offsetsSeconds.count), \(s.offsetsSeconds), \(s.utcOffsetsMinutes), \(s.averageDBFS),
                \(s.peakDBFS), \(s.zoneGuessed), \(s.location?.latitude), \(s.location?.longitude),
                \(s.location?.accuracyMetres), \(distance), \(status), \(reasons), \(status), \(reasons))
            ON CONFLICT (id) DO NOTHING
            RETURNING venue_id, received_at),
        queued AS (
            INSERT INTO aggregation_queue (venue_id, checkins_only) SELECT venue_id, true FROM inserted RETURNING venue_id)
        SELECT inserted.received_at FROM inserted, queued
        WHERE pg_notify(\(aggregationChannel), inserted.venue_id::text) IS NOT NULL
        """
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
