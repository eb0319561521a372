import Foundation
import HearClearTestSupport
import HummingbirdTesting
import PostgresNIO
import Testing

/// The exports' data: two venues with cells the worker judged from real check-ins, and bulk venues
/// with cells written directly (names with commas, quotes and line breaks; estimated cells).
public enum ExportDataSet {
    public static let bulkVenues = 1_100  // three pages of 500

    public static let checkins = [
        CheckinFixture(
            venue: "arms", device: "c0ffee00-1111", levelDBFS: -45, start: SubmissionFixture.previousHourStart),
        CheckinFixture(
            venue: "crown", device: "c0ffee00-2222", levelDBFS: -30, start: SubmissionFixture.previousHourStart),
    ]

    /// Submits the check-ins, waits for their cells, and writes the bulk venues and cells.
    public static func populate(_ client: some TestClientProtocol, _ database: PostgresClient) async throws {
        for checkin in checkins { #expect(try await checkin.submit(to: client) == .created) }
        for checkin in checkins {
            _ = try await eventually("the cells of \(checkin.venue)") {
                try await JSONProbe.get("/api/v2/venues/\(checkin.venue)/loudness", from: client)
            }
        }
        try await database.query(
            """
            INSERT INTO venues (external_id, name, latitude, longitude, timezone, category)
            SELECT 'bulk-' || lpad(i::text, 4, '0'),
                   CASE WHEN i % 3 = 0 THEN 'Bar, "The ' || i || '"' || E'\\r\\nupstairs' ELSE 'Venue ' || i END,
                   -33.5 + i * 0.001, 151.25 + i * 0.001, 'Europe/London', CASE WHEN i % 2 = 0 THEN 'pub' END
            FROM generate_series(1, \(bulkVenues)) i
            """, logger: EngineTestApp.logger)
        try await database.query(
            """
            INSERT INTO loudness_cells (venue_id, weekday, hour, level_dbfs, range_low_dbfs, range_high_dbfs,
                                        scale_db, checkins, devices, confidence)
            SELECT v.id, 1 + h, h, -60 + (v.id % 30), -62.25 + (v.id % 30), -57.75 + (v.id % 30), 1.5, 3, 2, 'medium'
            FROM venues v, generate_series(0, 3) h WHERE v.external_id LIKE 'bulk-%'
            """, logger: EngineTestApp.logger)
        try await database.query(
            """
            INSERT INTO loudness_cells (venue_id, weekday, hour, level_dbfs, range_low_dbfs, range_high_dbfs,
                                        scale_db, checkins, devices, confidence, estimated, basis)
            SELECT v.id, 7, 23, -55, -58, -52, 2, 0, 0, 'low', true, 'venue_pattern'
            FROM venues v WHERE v.external_id LIKE 'bulk-%' AND v.id % 2 = 0
            """, logger: EngineTestApp.logger)
    }

}
