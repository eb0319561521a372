import Foundation
import HearClearModel
import PostgresNIO

extension AdminVenueRepository {
    /// The check-in's hours with their cells, in weekday and hour order.
    public func hours(checkinID: UUID) async throws -> [AdminCheckinHour] {
        let rows = try await client.query(Self.hoursQuery(checkinID: checkinID), logger: logger)
        var hours: [AdminCheckinHour] = []
        for try await row in rows {
            var columns = ColumnReader(row)
            let hour = try AggregationResult.Hour(reading: &columns)
            let hasCell: Bool = try columns.next()
            hours.append(AdminCheckinHour(row: hour, cell: hasCell ? try StoredCell(reading: &columns) : nil))
        }
        return hours
    }

    static func hoursQuery(checkinID: UUID) -> PostgresQuery {
        """
        SELECT \(unescaped: AggregationResult.Hour.columns), l.venue_id IS NOT NULL, \(unescaped: StoredCell.columns)
        FROM checkin_hours h
        LEFT JOIN loudness_cells l ON l.venue_id = h.venue_id AND l.weekday = h.weekday AND l.hour = h.hour
        WHERE h.checkin_id = \(checkinID)
        ORDER BY h.weekday, h.hour LIMIT 200
        """
    }
}
