import Foundation
import HearClearModel
import LoudnessCore
import PostgresNIO

extension AggregationRepository {
    /// The venues' changes as stored (`venue_changes`), oldest first, by venue.
    public func changes(venueIDs: [Int64], on connection: PostgresConnection) async throws
        -> [Int64: [StoredVenueChange]]
    {
        guard !venueIDs.isEmpty else { return [:] }
        let rows = try await connection.query(
            """
            SELECT venue_id, \(unescaped: StoredVenueChange.columns)
            FROM venue_changes WHERE venue_id = ANY(\(venueIDs))
            ORDER BY venue_id, changed_at
            """,
            logger: logger)
        var changes: [Int64: [StoredVenueChange]] = [:]
        for try await row in rows {
            var columns = ColumnReader(row)
            let venueID: Int64 = try columns.next()
            changes[venueID, default: []].append(try StoredVenueChange(reading: &columns))
        }
        return changes
    }

    /// Stores the changes of the results that carry them: every row of such a venue is upserted
    /// (a dismissal stays a dismissal; when it was first detected stays), and its rows the
    /// judgement no longer holds are deleted.
    func writeChanges(_ results: [AggregationResult], on connection: PostgresConnection) async throws {
        let written = results.compactMap { result in result.changes.map { (result.venueID, $0) } }
        guard !written.isEmpty else { return }
        let rows = written.flatMap { venue, changes in changes.map { (venue, $0) } }
        try await connection.query(
            """
            WITH wanted AS (
                SELECT * FROM unnest(\(rows.map(\.0))::bigint[], \(rows.map(\.1.changedAt))::timestamptz[])
                  AS w(venue_id, changed_at))
            DELETE FROM venue_changes v
            WHERE v.venue_id = ANY(\(written.map(\.0)))
              AND NOT EXISTS (SELECT 1 FROM wanted w WHERE w.venue_id = v.venue_id AND w.changed_at = v.changed_at)
            """,
            logger: logger)
        guard !rows.isEmpty else { return }
        try await connection.query(
            """
            INSERT INTO venue_changes (venue_id, changed_at, detected_at, status, shift_db, shifts_db, checkins_since,
                                       dismissed_at, dismissed_by)
            SELECT c.venue_id, c.changed_at, c.detected_at, c.status, c.shift, string_to_array(c.shifts, ',')::real[],
                   c.since, CASE WHEN c.status = 'dismissed' THEN now() END,
                   CASE WHEN c.status = 'dismissed' THEN 'judgement' END
            FROM unnest(\(rows.map(\.0))::bigint[], \(rows.map(\.1.changedAt))::timestamptz[],
                        \(rows.map(\.1.detectedAt))::timestamptz[], \(rows.map(\.1.status.rawValue))::text[],
                        \(rows.map { Float($0.1.shiftDB) })::real[],
                        \(rows.map { $0.1.shiftsDB.map { String(Float($0)) }.joined(separator: ",") })::text[],
                        \(rows.map { Int32($0.1.checkinsSince) })::integer[])
              AS c(venue_id, changed_at, detected_at, status, shift, shifts, since)
            ON CONFLICT (venue_id, changed_at) DO UPDATE SET
                status = CASE WHEN venue_changes.status = 'dismissed' THEN 'dismissed' ELSE EXCLUDED.status END,
                shift_db = EXCLUDED.shift_db, shifts_db = EXCLUDED.shifts_db,
                checkins_since = EXCLUDED.checkins_since, updated_at = now()
            """,
            logger: logger)
    }
}

extension StoredVenueChange {
    /// The columns ``init(reading:)`` reads, of `venue_changes`.
    static let columns = """
        changed_at, detected_at, status, shift_db::float8, shifts_db, checkins_since, dismissed_at, dismissed_by
        """

    init(reading columns: inout ColumnReader) throws {
        let changedAt: Date = try columns.next()
        let detectedAt: Date = try columns.next()
        let rawStatus: String = try columns.next()
        guard let status = VenueChange.Status(rawValue: rawStatus) else {
            throw StoreError.unexpected("unknown venue_changes.status '\(rawStatus)'")
        }
        let shift: Double = try columns.next()
        let shifts: [Float] = try columns.next()
        let since: Int32 = try columns.next()
        self.init(
            changedAt: changedAt, detectedAt: detectedAt, status: status, shiftDB: shift,
            shiftsDB: shifts.map(Double.init), checkinsSince: Int(since), dismissedAt: try columns.next(),
            dismissedBy: try columns.next())
    }
}
