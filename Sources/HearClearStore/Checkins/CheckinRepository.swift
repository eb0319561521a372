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

    /// - Parameter cache: share it with the `VenueRepository` so a venue update is seen at once.
    public init(client: PostgresClient, logger: Logger, cache: IngestCache = IngestCache()) {
        self.client = client
        self.logger = logger
        self.cache = cache
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
            // Fast path: one statement, its own transaction.
            return try await client.withConnection { connection in
                try await insert(
                    submission, venue: venue, deviceID: deviceID, firstJudgement: firstJudgement, on: connection)
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
                    submission, venue: venue, deviceID: deviceID, firstJudgement: firstJudgement, on: connection)
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
            return stored?.0
        }
    }

    /// Inserts the check-in and queues its venue; nil when the id already exists.
    private func insert(
        _ submission: CheckinSubmission, venue: Venue, deviceID: Int64, firstJudgement: FirstJudgement,
        on connection: PostgresConnection
    ) async throws -> CheckinReceipt? {
        let verdict = firstJudgement(venue)
        let statement = PreparedQuery<IngestStatement>(
            try Self.insertQuery(submission, venueID: venue.id, deviceID: deviceID, verdict: verdict))
        let rows = try await connection.execute(statement, logger: logger)
        guard
            let (receivedAt, status, reasons) = try await rows.first(where: { _ in true })?.decode(
                (Date, String, [String]).self)
        else { return nil }
        return CheckinReceipt(
            id: submission.id, venueExternalID: venue.externalID, status: try CheckinStatus(stored: status),
            reasons: reasons.map(JudgementReason.init(rawValue:)), receivedAt: receivedAt,
            sampleCount: submission.averageDBFS.count
        )
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

    static func insertQuery(
        _ s: CheckinSubmission, venueID: Int64, deviceID: Int64, verdict: IntakeRule.Verdict
    ) throws -> PostgresQuery {
        let samples = try SampleSeries(s).column
        let status = verdict.status.rawValue
        let reasons = verdict.reasons.map(\.rawValue)
        let classes = s.classes
        let windows = classes?.windows
        // One UTC offset for the whole check-in is a smallint, only changing ones an array (0024).
        let offsets = s.utcOffsetsMinutes
        let singleOffset: Int16? = offsets.count == 1 ? offsets[0] : nil
        let changingOffsets: [Int16]? = offsets.count == 1 ? nil : offsets
        // A device cannot be at two venues at once: a check-in overlapping in time one of the same
        // device at another venue is excluded as `elsewhere_meanwhile` (the earlier one stands;
        // one already excluded so is no evidence against the next).
        // Read through the (device_id, started_at) index: its check-ins of the last day.
        return """
            WITH clash AS (
                SELECT EXISTS (
                    SELECT 1 FROM checkins o
                    WHERE o.device_id = \(deviceID) AND o.venue_id <> \(venueID)
                      AND o.started_at < \(s.endedAt) AND o.started_at > \(s.startedAt) - interval '1 day'
                      AND o.ended_at > \(s.startedAt)
                      AND NOT COALESCE(
                          '\(unescaped: JudgementReason.elsewhereMeanwhile.rawValue)' = ANY(o.receipt_reasons), false))
                  AS elsewhere),
            -- No reasons are stored as NULL (migration 0024).
            verdict AS (
                SELECT CASE WHEN elsewhere THEN 'excluded' ELSE \(status)::text END AS status,
                       CASE WHEN elsewhere THEN \(reasons)::text[] || '\(unescaped: JudgementReason.elsewhereMeanwhile.rawValue)'::text
                            ELSE NULLIF(\(reasons)::text[], '{}') END AS reasons
                FROM clash),
            -- The id taken once for all months (migration 0020): a resend, whatever its
            -- `started_at`, registers nothing and so stores nothing.
            registered AS (
                INSERT INTO checkin_ids (id) VALUES (\(s.id)) ON CONFLICT DO NOTHING RETURNING id),
            inserted AS (
                INSERT INTO checkins (
                    id, venue_id, device_id, source, started_at, ended_at, sample_count, samples, utc_offset_min,
                    utc_offsets_min,
                    zone_guessed, location_accuracy_m, distance_m, receipt_status, receipt_reasons, status, reasons,
                    classes_classifier, classes_classifier_version, classes_vocabulary,
                    class_window_offsets_s, class_window_seconds, class_window_classes, class_top_counts,
                    class_top_labels, class_top_permille, device_os)
                SELECT
                    \(s.id), \(venueID), \(deviceID), \(s.source.rawValue), \(s.startedAt), \(s.endedAt),
                    \(s.offsetsSeconds.count), \(samples), \(singleOffset)::smallint, \(changingOffsets)::smallint[],
                    \(s.zoneGuessed), \(s.location?.accuracyMetres), \(verdict.distanceMetres), v.status, v.reasons, v.status, v.reasons,
                    \(classes?.classifierName)::text, \(classes?.classifierVersion)::text,
                    \(classes?.vocabulary.rawValue)::text, \(windows?.map(\.offsetSeconds))::integer[],
                    \(windows?.map(\.seconds))::smallint[], \(windows?.map { Int16($0.soundClass.index) })::smallint[],
                    \(windows?.map { Int16($0.labels.count) })::smallint[], \(windows?.flatMap(\.labels))::text[],
                    \(windows?.flatMap(\.confidencesPermille))::smallint[], \(s.deviceOS)::text
                FROM verdict v, registered
                RETURNING id, venue_id, started_at, received_at, receipt_status,
                          COALESCE(receipt_reasons, '{}') AS receipt_reasons),
            counted AS (
                INSERT INTO venue_counts (venue_id, checkins) SELECT venue_id, 1 FROM inserted
                ON CONFLICT (venue_id) DO UPDATE SET checkins = venue_counts.checkins + 1),
            \(unescaped: AggregationQueue.enqueueing(from: "inserted", .checkinsAdded))
            SELECT inserted.received_at, inserted.receipt_status, inserted.receipt_reasons FROM inserted, notified
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

/// Ingest's statement (``CheckinRepository/insertQuery(_:venueID:deviceID:verdict:)``), prepared
/// once a connection.
enum IngestStatement: QueryShape {
    static let sql: String = {
        let sample = CheckinSubmission(
            id: UUID(), venue: .init(externalID: "v", details: nil), deviceID: "d", deviceModel: nil, location: nil,
            source: .v2, startedAt: Date(timeIntervalSince1970: 0), offsetsSeconds: [0], utcOffsetsMinutes: [0],
            averageDBFS: [-30], peakDBFS: [-20])
        let verdict = IntakeRule.Verdict(status: .pending, reasons: [], distanceMetres: nil)
        return (try? CheckinRepository.insertQuery(sample, venueID: 1, deviceID: 1, verdict: verdict).sql) ?? ""
    }()
}
