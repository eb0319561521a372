import Foundation
import HearClearModel
import Logging
import LoudnessCore
import NIOCore
import PostgresNIO

/// One check-in ready for ingest's statement: its submission's columns, its venue's and device's
/// keys, and its first judgement (``IntakeRule``).
struct IngestRow: Sendable {
    let id: UUID
    let venueID: Int64
    let deviceID: Int64
    let venueExternalID: String
    let sampleCount: Int
    let source: String
    let startedAt: Date
    let endedAt: Date
    let samples: ByteBuffer
    /// One UTC offset for the whole check-in is a smallint, only changing ones an array (0024).
    let utcOffset: Int16?
    let utcOffsets: String?
    let zoneGuessed: Bool
    let accuracyMetres: Double?
    let distanceMetres: Double?
    let status: String
    /// nil for none (0024).
    let reasons: String?
    let classifier: String?
    let classifierVersion: String?
    let vocabulary: String?
    let windowOffsets: String?
    let windowSeconds: String?
    let windowClasses: String?
    let topCounts: String?
    let topLabels: String?
    let topPermille: String?
    let deviceOS: String?

    init(
        _ s: CheckinSubmission, venue: Venue, deviceID: Int64, verdict: IntakeRule.Verdict
    ) throws {
        id = s.id
        venueID = venue.id
        venueExternalID = venue.externalID
        self.deviceID = deviceID
        sampleCount = s.offsetsSeconds.count
        source = s.source.rawValue
        startedAt = s.startedAt
        endedAt = s.endedAt
        samples = try SampleSeries(s).column
        let offsets = s.utcOffsetsMinutes
        utcOffset = offsets.count == 1 ? offsets[0] : nil
        utcOffsets = offsets.count == 1 ? nil : ArrayLiteral.numbers(offsets)
        zoneGuessed = s.zoneGuessed
        accuracyMetres = s.location?.accuracyMetres
        distanceMetres = verdict.distanceMetres
        status = verdict.status.rawValue
        reasons = verdict.reasons.isEmpty ? nil : ArrayLiteral.texts(verdict.reasons.map(\.rawValue))
        let classes = s.classes
        classifier = classes?.classifierName
        classifierVersion = classes?.classifierVersion
        vocabulary = classes?.vocabulary.rawValue
        let windows = classes?.windows
        windowOffsets = windows.map { ArrayLiteral.numbers($0.map(\.offsetSeconds)) }
        windowSeconds = windows.map { ArrayLiteral.numbers($0.map(\.seconds)) }
        windowClasses = windows.map { ArrayLiteral.numbers($0.map { Int16($0.soundClass.index) }) }
        topCounts = windows.map { ArrayLiteral.numbers($0.map { Int16($0.labels.count) }) }
        topLabels = windows.map { ArrayLiteral.texts($0.flatMap(\.labels)) }
        topPermille = windows.map { ArrayLiteral.numbers($0.flatMap(\.confidencesPermille)) }
        deviceOS = s.deviceOS
    }
}

/// PostgreSQL array literals (`{1,2}`, `{"a","b"}`), for the columns whose value is itself an
/// array: the grouped statement binds one text a row and casts it, as a parameter of arrays cannot
/// hold rows of different lengths.
enum ArrayLiteral {
    static func numbers<Number: BinaryInteger>(_ values: [Number]) -> String {
        "{" + values.map { String($0) }.joined(separator: ",") + "}"
    }

    /// Every element quoted, its backslashes and double quotes escaped (array_in's rules).
    static func texts(_ values: [String]) -> String {
        let quoted = values.map { value in
            var escaped = "\""
            for character in value {
                if character == "\\" || character == "\"" { escaped.append("\\") }
                escaped.append(character)
            }
            return escaped + "\""
        }
        return "{" + quoted.joined(separator: ",") + "}"
    }
}

/// Ingest's one statement, for one check-in or a group of them (docs/ARCHITECTURE.md, "The path
/// of a check-in" and "Check-ins written in groups"): each row's columns arrive as parallel arrays,
/// so the text is the same for any number of rows and is prepared once a connection. Per row: the
/// overlap part of ``IntakeRule`` (its parameters the statement's last two), the id registered in `checkin_ids` (a taken id stores nothing), the check-in
/// stored, its venue's count raised and the venue queued, in the statement's one transaction. It
/// answers a row for each check-in stored; one whose id was taken is missing.
///
/// A group must hold each id and each device once: rows of one statement do not see each other,
/// so two of one phone could not be checked against each other for the overlap.
enum IngestStatement: QueryShape {
    /// Each stored check-in's venue queued with it, its workers woken.
    private static let queueing = AggregationQueue.enqueueing(from: "inserted", .checkinsAdded)

    static let sql = """
        WITH batch AS (
            SELECT * FROM unnest(
                $1::uuid[], $2::bigint[], $3::bigint[], $4::text[], $5::timestamptz[], $6::timestamptz[],
                $7::integer[], $8::bytea[], $9::smallint[], $10::text[], $11::boolean[],
                $12::double precision[], $13::double precision[], $14::text[], $15::text[], $16::text[],
                $17::text[], $18::text[], $19::text[], $20::text[], $21::text[], $22::text[], $23::text[],
                $24::text[], $25::text[])
            AS b(id, venue_id, device_id, source, started_at, ended_at, sample_count, samples, utc_offset_min,
                 utc_offsets_min, zone_guessed, location_accuracy_m, distance_m, status, reasons,
                 classes_classifier, classes_classifier_version, classes_vocabulary, class_window_offsets_s,
                 class_window_seconds, class_window_classes, class_top_counts, class_top_labels,
                 class_top_permille, device_os)),
        -- IntakeRule's overlap: a check-in overlapping in time one of the same device at another
        -- venue is excluded for reason $27 (the earlier one stands; one already excluded so is no
        -- evidence against the next). Read through the (device_id, started_at) index: the phone's
        -- check-ins of the $26 seconds before.
        verdict AS (
            SELECT b.*, EXISTS (
                SELECT 1 FROM checkins o
                WHERE o.device_id = b.device_id AND o.venue_id <> b.venue_id
                  AND o.started_at < b.ended_at AND o.started_at > b.started_at - $26::integer * interval '1 second'
                  AND o.ended_at > b.started_at
                  AND NOT COALESCE($27::text = ANY(o.receipt_reasons), false)) AS elsewhere
            FROM batch b),
        -- No reasons are stored as NULL (migration 0024).
        judged AS (
            SELECT v.*,
                   CASE WHEN v.elsewhere THEN 'excluded' ELSE v.status END AS first_status,
                   CASE WHEN v.elsewhere THEN COALESCE(v.reasons::text[], '{}') || $27::text
                        ELSE v.reasons::text[] END AS first_reasons
            FROM verdict v),
        -- The id taken once for all months (migration 0020): a resend, whatever its `started_at`,
        -- registers nothing and so stores nothing.
        registered AS (
            INSERT INTO checkin_ids (id) SELECT id FROM batch ON CONFLICT DO NOTHING RETURNING id),
        inserted AS (
            INSERT INTO checkins (
                id, venue_id, device_id, source, started_at, ended_at, sample_count, samples, utc_offset_min,
                utc_offsets_min, zone_guessed, location_accuracy_m, distance_m, receipt_status, receipt_reasons,
                status, reasons, classes_classifier, classes_classifier_version, classes_vocabulary,
                class_window_offsets_s, class_window_seconds, class_window_classes, class_top_counts,
                class_top_labels, class_top_permille, device_os)
            SELECT
                j.id, j.venue_id, j.device_id, j.source, j.started_at, j.ended_at, j.sample_count, j.samples,
                j.utc_offset_min, j.utc_offsets_min::smallint[], j.zone_guessed, j.location_accuracy_m,
                j.distance_m, j.first_status, j.first_reasons, j.first_status, j.first_reasons,
                j.classes_classifier, j.classes_classifier_version, j.classes_vocabulary,
                j.class_window_offsets_s::integer[], j.class_window_seconds::smallint[],
                j.class_window_classes::smallint[], j.class_top_counts::smallint[], j.class_top_labels::text[],
                j.class_top_permille::smallint[], j.device_os
            FROM judged j JOIN registered USING (id)
            RETURNING id, venue_id, started_at, received_at, receipt_status,
                      COALESCE(receipt_reasons, '{}') AS receipt_reasons),
        -- The venues' counts locked in the order of their ids: two groups written at once that
        -- share venues wait for each other, and never deadlock (as they did in the crash test).
        counted AS (
            INSERT INTO venue_counts (venue_id, checkins)
            SELECT venue_id, count(*) FROM inserted GROUP BY venue_id ORDER BY venue_id
            ON CONFLICT (venue_id) DO UPDATE SET checkins = venue_counts.checkins + EXCLUDED.checkins),
        \(queueing.definitions)
        SELECT inserted.id, inserted.received_at, inserted.receipt_status, inserted.receipt_reasons
        FROM inserted WHERE \(queueing.sentCount) >= 0
        """

    /// The statement for `rows`, each id and device at most once.
    static func query(_ rows: [IngestRow]) -> PreparedQuery<IngestStatement> {
        // In the order of their ids, which `checkin_ids` is written in: two statements that share
        // an id (a resend while the first is being written) wait for each other, never in a circle.
        let rows = rows.sorted { $0.id < $1.id }
        var binds = PostgresBindings(capacity: 27)
        binds.append(rows.map(\.id))
        binds.append(rows.map(\.venueID))
        binds.append(rows.map(\.deviceID))
        binds.append(rows.map(\.source))
        binds.append(rows.map(\.startedAt))
        binds.append(rows.map(\.endedAt))
        binds.append(rows.map { Int32($0.sampleCount) })
        binds.append(rows.map(\.samples))
        binds.append(NullableArray(rows.map(\.utcOffset)))
        binds.append(NullableArray(rows.map(\.utcOffsets)))
        binds.append(rows.map(\.zoneGuessed))
        binds.append(NullableArray(rows.map(\.accuracyMetres)))
        binds.append(NullableArray(rows.map(\.distanceMetres)))
        binds.append(rows.map(\.status))
        binds.append(NullableArray(rows.map(\.reasons)))
        binds.append(NullableArray(rows.map(\.classifier)))
        binds.append(NullableArray(rows.map(\.classifierVersion)))
        binds.append(NullableArray(rows.map(\.vocabulary)))
        binds.append(NullableArray(rows.map(\.windowOffsets)))
        binds.append(NullableArray(rows.map(\.windowSeconds)))
        binds.append(NullableArray(rows.map(\.windowClasses)))
        binds.append(NullableArray(rows.map(\.topCounts)))
        binds.append(NullableArray(rows.map(\.topLabels)))
        binds.append(NullableArray(rows.map(\.topPermille)))
        binds.append(NullableArray(rows.map(\.deviceOS)))
        binds.append(Int32(IntakeRule.overlapLookbackSeconds))
        binds.append(IntakeRule.overlapReason.rawValue)
        return PreparedQuery(PostgresQuery(unsafeSQL: sql, binds: binds))
    }

    /// ``run(_:on:logger:)`` on a connection of `client`'s pool, in the statement's own transaction,
    /// run again when PostgreSQL rolled it back (``RolledBack``).
    static func run(_ rows: [IngestRow], client: PostgresClient, logger: Logger) async throws
        -> [UUID: CheckinReceipt]
    {
        try await RolledBack.retrying("ingest's statement", logger: logger) {
            try await client.withConnection { connection in try await run(rows, on: connection, logger: logger) }
        }
    }

    /// Runs the statement on `connection`: the receipt of each check-in stored, by id (a row whose
    /// id was taken has none).
    static func run(_ rows: [IngestRow], on connection: PostgresConnection, logger: Logger) async throws
        -> [UUID: CheckinReceipt]
    {
        let byID = Dictionary(rows.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        var receipts: [UUID: CheckinReceipt] = [:]
        let answered = try await connection.execute(query(rows), logger: logger)
        for try await (id, receivedAt, status, reasons) in answered.decode((UUID, Date, String, [String]).self) {
            guard let row = byID[id] else { continue }
            receipts[id] = CheckinReceipt(
                id: id, venueExternalID: row.venueExternalID, status: try CheckinStatus(stored: status),
                reasons: reasons.map { JudgementReason(rawValue: $0) }, receivedAt: receivedAt,
                sampleCount: row.sampleCount)
        }
        return receipts
    }
}
