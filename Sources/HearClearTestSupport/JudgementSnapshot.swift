import Logging
import PostgresNIO

/// Every stored judgement of a venue as text, to compare what two ways of judging wrote.
public enum JudgementSnapshot {
    /// Check-ins (status, reasons, level, cleaning), hour rows (all columns) and cells (all but
    /// `updated_at`), each row as PostgreSQL's text of it, in key order.
    public static func of(_ venueID: Int64, on client: PostgresClient) async throws -> [String] {
        let queries = [
            """
            SELECT id, status, COALESCE(reasons, '{}'), level_dbfs, valid_seconds, cleaned_at IS NOT NULL,
                   clean_exclusion
            FROM checkins WHERE venue_id = \(venueID) ORDER BY id
            """,
            """
            SELECT checkin_id, device_id, weekday, hour, leq_dbfs, l10_dbfs, l50_dbfs, l90_dbfs, max_peak_dbfs,
                   valid_seconds, model_offset_db, counted, outlier, modified_z, residual_db, other_devices
            FROM checkin_hours WHERE venue_id = \(venueID) ORDER BY checkin_id, weekday, hour
            """,
            """
            SELECT weekday, hour, level_dbfs, range_low_dbfs, range_high_dbfs, scale_db, checkins, devices, confidence
            FROM loudness_cells WHERE venue_id = \(venueID) ORDER BY weekday, hour
            """,
        ]
        var lines: [String] = []
        for query in queries {
            let rows = try await client.query(
                PostgresQuery(unsafeSQL: "SELECT t::text FROM (\(query)) AS t"),
                logger: Logger(label: "hearclear.tests.snapshot"))
            for try await line in rows.decode(String.self) { lines.append(line) }
        }
        return lines
    }
}
