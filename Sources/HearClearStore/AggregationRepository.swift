import Foundation
import Logging
import PostgresNIO

/// Reads a venue's check-ins for the aggregation worker and writes its judgement back. Both run
/// on the connection of the worker's transaction (see ``AggregationQueue``).
public struct AggregationRepository: Sendable {
    let logger: Logger

    public init(logger: Logger) {
        self.logger = logger
    }

    /// The venue and all its check-ins, oldest first; `nil` when the venue does not exist.
    /// Raw samples are read only for check-ins not cleaned yet; the others come with their
    /// stored cleaning and judgement.
    public func load(venueID: Int64, on connection: PostgresConnection) async throws -> AggregationInput? {
        let venueRows = try await connection.query(
            "SELECT external_id, timezone FROM venues WHERE id = \(venueID)", logger: logger)
        var venue: (String, String?)?
        for try await row in venueRows.decode((String, String?).self) { venue = row }
        guard let venue else { return nil }
        let hours = try await storedHours(venueID: venueID, on: connection)
        let rows = try await connection.query(
            """
            SELECT c.id, c.device_id, d.excluded, COALESCE(o.offset_db, 0)::float8, c.receipt_reasons,
                   c.cleaned_at IS NOT NULL, c.clean_exclusion, COALESCE(c.valid_seconds, 0), c.level_dbfs, c.status,
                   c.reasons,
                   CASE WHEN c.cleaned_at IS NULL THEN c.started_at END,
                   CASE WHEN c.cleaned_at IS NULL THEN c.offsets_s END,
                   CASE WHEN c.cleaned_at IS NULL THEN c.utc_offsets_min END,
                   CASE WHEN c.cleaned_at IS NULL THEN c.average_dbfs END,
                   CASE WHEN c.cleaned_at IS NULL THEN c.peak_dbfs END,
                   a.decision
            FROM checkins c
            JOIN devices d ON d.id = c.device_id
            LEFT JOIN device_model_offsets o ON o.model = d.model
            LEFT JOIN checkin_overrides a ON a.checkin_id = c.id
            WHERE c.venue_id = \(venueID)
            ORDER BY c.started_at, c.id
            """,
            logger: logger)
        var checkins: [AggregationInput.Checkin] = []
        for try await row in rows {
            var column = ColumnReader(row)
            let id: UUID = try column.next()
            let deviceKey: Int64 = try column.next()
            let deviceExcluded: Bool = try column.next()
            let modelOffset: Double = try column.next()
            let receiptReasons: [String] = try column.next()
            let cleaned: Bool = try column.next()
            let cleanExclusion: String? = try column.next()
            let validSeconds: Int = try column.next()
            let level: Float? = try column.next()
            let status: String = try column.next()
            let reasons: [String] = try column.next()
            let startedAt: Date? = try column.next()
            let offsets: [Int32]? = try column.next()
            let zones: [Int16]? = try column.next()
            let averages: [Float]? = try column.next()
            let peaks: [Float]? = try column.next()
            let adminDecision: String? = try column.next()
            var raw: AggregationInput.Raw?
            var stored: AggregationInput.Stored?
            if cleaned {
                stored = .init(
                    cleanExclusion: cleanExclusion, validSeconds: validSeconds, levelDBFS: level.map(Double.init),
                    status: status, reasons: reasons, hours: hours[id] ?? [])
            } else if let startedAt, let offsets, let zones, let averages, let peaks {
                raw = .init(
                    startedAt: startedAt, offsetsSeconds: offsets, utcOffsetsMinutes: zones, averageDBFS: averages,
                    peakDBFS: peaks)
            }
            checkins.append(
                .init(
                    id: id, deviceKey: deviceKey, deviceExcluded: deviceExcluded, modelOffsetDB: modelOffset,
                    receiptReasons: receiptReasons, raw: raw, stored: stored,
                    adminDecision: adminDecision.flatMap(AggregationInput.AdminDecision.init)))
        }
        return AggregationInput(venueID: venueID, venueExternalID: venue.0, timezone: venue.1, checkins: checkins)
    }

    /// The hour rows of the venue's cleaned check-ins, by check-in.
    private func storedHours(venueID: Int64, on connection: PostgresConnection) async throws
        -> [UUID: [AggregationResult.Hour]]
    {
        let rows = try await connection.query(
            """
            SELECT h.checkin_id, h.device_id, h.weekday, h.hour, h.leq_dbfs, h.l10_dbfs, h.l50_dbfs, h.l90_dbfs,
                   h.max_peak_dbfs, h.valid_seconds, h.model_offset_db, h.counted, h.outlier, h.modified_z,
                   h.residual_db, h.other_devices
            FROM checkin_hours h JOIN checkins c ON c.id = h.checkin_id
            WHERE h.venue_id = \(venueID) AND c.cleaned_at IS NOT NULL
            ORDER BY h.checkin_id, h.weekday, h.hour
            """,
            logger: logger)
        var hours: [UUID: [AggregationResult.Hour]] = [:]
        for try await row in rows {
            var c = ColumnReader(row)
            let id: UUID = try c.next()
            let hour = AggregationResult.Hour(
                checkinID: id, deviceKey: try c.next(), weekday: Int(try c.next(Int16.self)),
                hour: Int(try c.next(Int16.self)), leqDBFS: Double(try c.next(Float.self)),
                l10DBFS: Double(try c.next(Float.self)), l50DBFS: Double(try c.next(Float.self)),
                l90DBFS: Double(try c.next(Float.self)), maxPeakDBFS: Double(try c.next(Float.self)),
                validSeconds: Int(try c.next(Int32.self)), modelOffsetDB: Double(try c.next(Float.self)),
                counted: try c.next(), outlier: try c.next(), modifiedZ: try c.next(Float?.self).map(Double.init),
                residualDB: try c.next(Float?.self).map(Double.init), otherDevices: Int(try c.next(Int32.self)))
            hours[id, default: []].append(hour)
        }
        return hours
    }

    /// Writes what changed: the judgements given, the hour rows of newly cleaned check-ins
    /// (replacing any old ones), the changed hour rows of the others, and all the venue's cells.
    /// Optional numbers travel as NaN in the arrays (PostgresNIO binds no NULL array elements)
    /// and reasons as one comma-joined string per check-in (they are identifiers).
    public func write(_ result: AggregationResult, on connection: PostgresConnection) async throws {
        let venueID = result.venueID
        let judgements = result.judgements
        if !judgements.isEmpty {
            try await connection.query(
                """
                UPDATE checkins AS c SET
                    status = u.status,
                    reasons = CASE WHEN u.reasons = '' THEN '{}'::text[] ELSE string_to_array(u.reasons, ',') END,
                    level_dbfs = NULLIF(u.level, 'NaN'::real), valid_seconds = u.valid, judged_at = now(),
                    cleaned_at = CASE WHEN u.newly THEN now() ELSE c.cleaned_at END,
                    clean_exclusion = CASE WHEN u.newly THEN NULLIF(u.clean, '') ELSE c.clean_exclusion END
                FROM unnest(\(judgements.map(\.checkinID))::uuid[], \(judgements.map(\.status))::text[],
                            \(judgements.map { $0.reasons.joined(separator: ",") })::text[],
                            \(judgements.map { Float($0.levelDBFS ?? .nan) })::real[],
                            \(judgements.map { Int32($0.validSeconds) })::integer[],
                            \(judgements.map(\.newlyCleaned))::boolean[],
                            \(judgements.map { $0.cleanExclusion ?? "" })::text[])
                     AS u(id, status, reasons, level, valid, newly, clean)
                WHERE c.id = u.id AND c.venue_id = \(venueID)
                """,
                logger: logger)
        }
        let newlyCleaned = judgements.filter(\.newlyCleaned).map(\.checkinID)
        if !newlyCleaned.isEmpty {
            try await connection.query(
                "DELETE FROM checkin_hours WHERE checkin_id = ANY(\(newlyCleaned))", logger: logger)
        }
        try await insertHours(result.newHours, venueID: venueID, on: connection)
        try await updateHours(result.changedHours, on: connection)
        try await writeCells(result.cells, venueID: venueID, on: connection)
        // The admin's "newest activity first" (only moves forward: a late retry never makes a
        // venue look older).
        try await connection.query(
            """
            UPDATE venue_activity SET activity_at = greatest(activity_at, m.last), last_checkin_at = m.last
            FROM (SELECT max(received_at) AS last FROM checkins WHERE venue_id = \(venueID)) AS m
            WHERE venue_id = \(venueID) AND m.last IS NOT NULL
              AND (last_checkin_at IS NULL OR last_checkin_at < m.last)
            """,
            logger: logger)
    }

    private func updateHours(_ hours: [AggregationResult.Hour], on connection: PostgresConnection) async throws {
        guard !hours.isEmpty else { return }
        try await connection.query(
            """
            UPDATE checkin_hours AS h SET
                model_offset_db = u.model_offset, counted = u.counted, outlier = u.outlier,
                modified_z = NULLIF(u.z, 'NaN'::real), residual_db = NULLIF(u.residual, 'NaN'::real),
                other_devices = u.others
            FROM unnest(
                \(hours.map(\.checkinID))::uuid[], \(hours.map { Int16($0.weekday) })::smallint[],
                \(hours.map { Int16($0.hour) })::smallint[], \(hours.map { Float($0.modelOffsetDB) })::real[],
                \(hours.map(\.counted))::boolean[], \(hours.map(\.outlier))::boolean[],
                \(hours.map { Float($0.modifiedZ ?? .nan) })::real[], \(hours.map { Float($0.residualDB ?? .nan) })::real[],
                \(hours.map { Int32($0.otherDevices) })::integer[])
              AS u(checkin_id, weekday, hour, model_offset, counted, outlier, z, residual, others)
            WHERE h.checkin_id = u.checkin_id AND h.weekday = u.weekday AND h.hour = u.hour
            """,
            logger: logger)
    }

    private func insertHours(_ hours: [AggregationResult.Hour], venueID: Int64, on connection: PostgresConnection)
        async throws
    {
        guard !hours.isEmpty else { return }
        try await connection.query(
            """
            INSERT INTO checkin_hours (
                checkin_id, venue_id, device_id, weekday, hour, leq_dbfs, l10_dbfs, l50_dbfs, l90_dbfs,
                max_peak_dbfs, valid_seconds, model_offset_db, counted, outlier, modified_z, residual_db,
                other_devices)
            SELECT h.checkin_id, \(venueID), h.device_id, h.weekday, h.hour, h.leq, h.l10, h.l50, h.l90, h.peak,
                   h.valid, h.model_offset, h.counted, h.outlier, NULLIF(h.z, 'NaN'::real),
                   NULLIF(h.residual, 'NaN'::real), h.others
            FROM unnest(
                \(hours.map(\.checkinID))::uuid[], \(hours.map(\.deviceKey))::bigint[],
                \(hours.map { Int16($0.weekday) })::smallint[], \(hours.map { Int16($0.hour) })::smallint[],
                \(hours.map { Float($0.leqDBFS) })::real[], \(hours.map { Float($0.l10DBFS) })::real[],
                \(hours.map { Float($0.l50DBFS) })::real[], \(hours.map { Float($0.l90DBFS) })::real[],
                \(hours.map { Float($0.maxPeakDBFS) })::real[], \(hours.map { Int32($0.validSeconds) })::integer[],
                \(hours.map { Float($0.modelOffsetDB) })::real[], \(hours.map(\.counted))::boolean[],
                \(hours.map(\.outlier))::boolean[], \(hours.map { Float($0.modifiedZ ?? .nan) })::real[],
                \(hours.map { Float($0.residualDB ?? .nan) })::real[], \(hours.map { Int32($0.otherDevices) })::integer[])
              AS h(checkin_id, device_id, weekday, hour, leq, l10, l50, l90, peak, valid, model_offset, counted,
                   outlier, z, residual, others)
            """,
            logger: logger)
    }

    private func writeCells(_ cells: [StoredCell], venueID: Int64, on connection: PostgresConnection) async throws {
        try await connection.query("DELETE FROM loudness_cells WHERE venue_id = \(venueID)", logger: logger)
        guard !cells.isEmpty else { return }
        try await connection.query(
            """
            INSERT INTO loudness_cells (
                venue_id, weekday, hour, level_dbfs, range_low_dbfs, range_high_dbfs, scale_db, checkins, devices,
                confidence)
            SELECT \(venueID), c.weekday, c.hour, c.level, c.low, c.high, c.scale, c.checkins, c.devices, c.confidence
            FROM unnest(
                \(cells.map { Int16($0.weekday) })::smallint[], \(cells.map { Int16($0.hour) })::smallint[],
                \(cells.map { Float($0.levelDBFS) })::real[], \(cells.map { Float($0.rangeLowDBFS) })::real[],
                \(cells.map { Float($0.rangeHighDBFS) })::real[], \(cells.map { Float($0.scaleDB) })::real[],
                \(cells.map { Int32($0.checkins) })::integer[], \(cells.map { Int32($0.devices) })::integer[],
                \(cells.map(\.confidence))::text[])
              AS c(weekday, hour, level, low, high, scale, checkins, devices, confidence)
            """,
            logger: logger)
    }
}
