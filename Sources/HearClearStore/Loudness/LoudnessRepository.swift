import Foundation
import HearClearModel
import Logging
import PostgresNIO

/// Reads what the aggregation worker stored: cells, and the model offsets used for calibration.
/// Queries never compute statistics; they read stored rows.
public struct LoudnessRepository: Sendable {
    let client: PostgresClient
    let logger: Logger

    public init(client: PostgresClient, logger: Logger) {
        self.client = client
        self.logger = logger
    }

    /// The venue's cells with their sound character, Monday 0:00 first.
    /// When the venue's change in force began (`venue_changes`), nil when none is in force.
    public func changedAt(venueID: Int64) async throws -> Date? {
        let rows = try await client.query(
            "SELECT max(changed_at) FROM venue_changes WHERE venue_id = \(venueID) AND status = 'in_force'",
            logger: logger)
        for try await changedAt in rows.decode(Date?.self) { return changedAt }
        return nil
    }

    public func cells(venueID: Int64) async throws -> [StoredCell] {
        let rows = try await client.query(
            """
            SELECT \(unescaped: StoredCell.columns), \(unescaped: StoredCell.characterColumns) FROM loudness_cells l
            WHERE l.venue_id = \(venueID) ORDER BY l.weekday, l.hour
            """,
            logger: logger)
        var cells: [StoredCell] = []
        for try await row in rows {
            var columns = ColumnReader(row)
            var cell = try StoredCell(reading: &columns)
            try cell.readCharacter(&columns)
            cells.append(cell)
        }
        return cells
    }

    /// The cells of each venue at its venue-local hour (0–23) on every weekday, in one statement.
    public func cells(at hours: [(venueID: Int64, hour: Int)]) async throws -> [(venueID: Int64, cell: StoredCell)] {
        guard !hours.isEmpty else { return [] }
        let rows = try await client.query(
            """
            SELECT l.venue_id, \(unescaped: StoredCell.columns), \(unescaped: StoredCell.characterColumns)
            FROM unnest(\(hours.map(\.venueID))::int8[], \(hours.map { Int16($0.hour) })::int2[]) AS w(venue_id, hour)
            JOIN loudness_cells l ON l.venue_id = w.venue_id AND l.hour = w.hour
            ORDER BY l.venue_id, l.weekday
            """,
            logger: logger)
        var cells: [(venueID: Int64, cell: StoredCell)] = []
        for try await row in rows {
            var columns = ColumnReader(row)
            let venueID = try columns.next(Int64.self)
            var cell = try StoredCell(reading: &columns)
            try cell.readCharacter(&columns)
            cells.append((venueID, cell))
        }
        return cells
    }

    /// How many of the venue's check-ins are currently `included` in its cells.
    public func includedCheckinCount(venueID: Int64) async throws -> Int {
        let rows = try await client.query(
            "SELECT count(*) FROM checkins WHERE venue_id = \(venueID) AND status = 'included'", logger: logger)
        for try await count in rows.decode(Int.self) { return count }
        return 0
    }

    /// The calibration offset of a device model (0 when it has none or no model is known).
    public func modelOffsetDB(model: String?) async throws -> Double {
        guard let model else { return 0 }
        let rows = try await client.query(
            "SELECT offset_db::float8 FROM device_model_offsets WHERE model = \(model)", logger: logger)
        for try await offset in rows.decode(Double.self) { return offset }
        return 0
    }
}
