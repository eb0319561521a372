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
    public func load(venueID: Int64, on connection: PostgresConnection) async throws -> AggregationInput? {
        let venueRows = try await connection.query(
            "SELECT external_id, timezone FROM venues WHERE id = \(venueID)", logger: logger)
        var venue: (String, String?)?
        for try await row in venueRows.decode((String, String?).self) { venue = row }
        guard let venue else { return nil }
        let rows = try await connection.query(
            """
            SELECT c.id, c.device_id, d.excluded, COALESCE(o.offset_db, 0)::float8, c.started_at, c.offsets_s,
                   c.utc_offsets_min, c.average_dbfs, c.peak_dbfs, c.receipt_reasons, a.decision
            FROM checkins c
            JOIN devices d ON d.id = c.device_id
            LEFT JOIN device_model_offsets o ON o.model = d.model
            LEFT JOIN checkin_overrides a ON a.checkin_id = c.id
            WHERE c.venue_id = \(venueID)
            ORDER BY c.started_at, c.id
            """,
            logger: logger)
        var checkins: [AggregationInput.Checkin] = []
        for try await row in rows.decode(
            (UUID, Int64, Bool, Double, Date, [Int32], [Int16], [Float], [Float], [String], String?).self)
        {
            checkins.append(
                .init(
                    id: row.0, deviceKey: row.1, deviceExcluded: row.2, modelOffsetDB: row.3, startedAt: row.4,
                    offsetsSeconds: row.5, utcOffsetsMinutes: row.6, averageDBFS: row.7, peakDBFS: row.8,
                    receiptReasons: row.9, adminDecision: row.10.flatMap(AggregationInput.AdminDecision.init)))
        }
        return AggregationInput(venueID: venueID, venueExternalID: venue.0, timezone: venue.1, checkins: checkins)
    }

    /// Replaces the venue's judgements, `checkin_hours` rows and `loudness_cells`.
    /// Optional numbers travel as NaN in the arrays (PostgresNIO binds no NULL array elements)
    /// and reasons as one comma-joined string per check-in (they are identifiers).
    public func write(_ result: AggregationResult, on connection: PostgresConnection) async throws {
        let venueID = result.venueID
        let judgements = result.judgements
        try await connection.query(
            """
            UPDATE checkins AS c SET
                status = u.status,
                reasons = CASE WHEN u.reasons = '' THEN '{}'::text[] ELSE string_to_array(u.reasons, ',') END,
                level_dbfs = NULLIF(u.level, 'NaN'::real), valid_seconds = u.valid, judged_at = now()
            FROM unnest(\(judgements.map(\.checkinID))::uuid[], \(judgements.map(\.status))::text[],
                        \(judgements.map { $0.reasons.joined(separator: ",") })::text[],
                        \(judgements.map { Float($0.levelDBFS ?? .nan) })::real[],
                        \(judgements.map { Int32($0.validSeconds) })::integer[])
                 AS u(id, status, reasons, level, valid)
            WHERE c.id = u.id AND c.venue_id = \(venueID)
            """,
            logger: logger)
        try await writeHours(result.hours, venueID: venueID, on: connection)
        try await writeCells(result.cells, venueID: venueID, on: connection)
    }

    private func writeHours(_ hours: [AggregationResult.Hour], venueID: Int64, on connection: PostgresConnection)
        async throws
    {
        try await connection.query("DELETE FROM checkin_hours WHERE venue_id = \(venueID)", logger: logger)
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
