import Foundation
import HearClearModel
import Logging
import PostgresNIO

/// Reads cells for the open-data exports (`/api/v2/export/cells.*`) in keyset pages of venues,
/// so that an export of any size holds one page in memory. Only what is published is read: the
/// venue's public fields and its stored cells; nothing about devices or check-ins.
public struct ExportRepository: Sendable {
    let client: PostgresClient
    let logger: Logger

    public init(client: PostgresClient, logger: Logger) {
        self.client = client
        self.logger = logger
    }

    /// A venue with data, as exported.
    public struct ExportedVenue: Sendable, Equatable {
        /// The database id: the key of the next page (never exported).
        public var id: Int64
        public var externalID: String
        public var name: String
        public var category: String?
        public var timezone: String?
        public var latitude: Double
        public var longitude: Double
        /// Monday 0:00 first; never empty.
        public var cells: [StoredCell]
    }

    /// The current ``ExportStamp``, in one query.
    public func stamp() async throws -> ExportStamp {
        let rows = try await client.query(
            """
            SELECT greatest(
                     (SELECT max(updated_at) FROM loudness_cells),
                     (SELECT max(v.updated_at) FROM venues v
                      WHERE EXISTS (SELECT 1 FROM loudness_cells l WHERE l.venue_id = v.id))),
                   (SELECT count(*) FROM loudness_cells)::int8,
                   (SELECT count(DISTINCT venue_id) FROM loudness_cells)::int8
            """,
            logger: logger)
        for try await (last, cells, venues) in rows.decode((Date?, Int64, Int64).self) {
            return ExportStamp(lastChange: last, cells: Int(cells), venues: Int(venues))
        }
        return ExportStamp(lastChange: nil, cells: 0, venues: 0)
    }

    /// Up to `limit` venues with cells whose id is above `afterID`, in id order, each with all its
    /// cells: one query joining `venues` and `loudness_cells`. An empty page is the end.
    public func page(after afterID: Int64, limit: Int) async throws -> [ExportedVenue] {
        let rows = try await client.query(
            """
            WITH page AS (
                SELECT v.id FROM venues v
                WHERE v.id > \(afterID) AND EXISTS (SELECT 1 FROM loudness_cells l WHERE l.venue_id = v.id)
                ORDER BY v.id LIMIT \(Int64(limit)))
            SELECT v.id, v.external_id, v.name, v.category, v.timezone, v.latitude, v.longitude,
                   \(unescaped: StoredCell.columns)
            FROM page p JOIN venues v ON v.id = p.id JOIN loudness_cells l ON l.venue_id = v.id
            ORDER BY v.id, l.weekday, l.hour
            """,
            logger: logger)
        var venues: [ExportedVenue] = []
        for try await row in rows {
            var columns = ColumnReader(row)
            let id: Int64 = try columns.next()
            let externalID: String = try columns.next()
            let name: String = try columns.next()
            let category: String? = try columns.next()
            let timezone: String? = try columns.next()
            let latitude: Double = try columns.next()
            let longitude: Double = try columns.next()
            let cell = try StoredCell(reading: &columns)
            if venues.last?.id == id {
                venues[venues.count - 1].cells.append(cell)
            } else {
                venues.append(
                    ExportedVenue(
                        id: id, externalID: externalID, name: name, category: category, timezone: timezone,
                        latitude: latitude, longitude: longitude, cells: [cell]))
            }
        }
        return venues
    }
}
