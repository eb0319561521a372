import Foundation
import HearClearModel
import Logging
import LoudnessCore
import PostgresNIO

/// Reads of `venue_reports` for the admin. Lists walk an index newest first and stop at `limit`.
public struct AdminReportRepository: Sendable {
    let client: PostgresClient
    let logger: Logger

    public init(client: PostgresClient, logger: Logger) {
        self.client = client
        self.logger = logger
    }

    /// Reports newest first, all or of one status.
    public func list(status: ReportStatus?, limit: Int, offset: Int) async throws -> [AdminReportRow] {
        try await rows(Self.listQuery(status: status, limit: limit, offset: offset))
    }

    /// The venue's open reports, newest first.
    public func open(venueID: Int64, limit: Int) async throws -> [AdminReportRow] {
        try await rows(Self.openQuery(venueID: venueID, limit: limit))
    }

    /// How many reports are open.
    public func openCount() async throws -> Int {
        let rows = try await client.query("SELECT count(*) FROM venue_reports WHERE status = 'open'", logger: logger)
        for try await count in rows.decode(Int.self) { return count }
        return 0
    }

    /// Cells whose open "quieter"/"louder" reports come from at least `minimumDevices` devices,
    /// the most recently reported first.
    public func disputedCells(minimumDevices: Int, limit: Int) async throws -> [AdminDisputedCell] {
        let rows = try await client.query(
            Self.disputedCellsQuery(minimumDevices: minimumDevices, limit: limit), logger: logger)
        var cells: [AdminDisputedCell] = []
        for try await row in rows {
            var columns = ColumnReader(row)
            cells.append(
                AdminDisputedCell(
                    venueExternalID: try columns.next(), venueName: try columns.next(),
                    position: CellPosition(
                        weekday: Int(try columns.next(Int16.self)), hour: Int(try columns.next(Int16.self))),
                    quieter: try columns.next(Int.self), louder: try columns.next(Int.self),
                    devices: try columns.next(Int.self), latestAt: try columns.next(),
                    levelNowDBFS: try columns.next(Float?.self).map(Double.init),
                    levelNowEstimated: try columns.next(Bool.self)))
        }
        return cells
    }

    private func rows(_ query: PostgresQuery) async throws -> [AdminReportRow] {
        let rows = try await client.query(query, logger: logger)
        var reports: [AdminReportRow] = []
        for try await row in rows {
            var columns = ColumnReader(row)
            let report = try StoredReport(reading: &columns)
            reports.append(
                AdminReportRow(
                    report: report, venueName: try columns.next(), deviceKey: try columns.next(),
                    deviceClientID: try columns.next(), levelNowDBFS: try columns.next(Float?.self).map(Double.init),
                    levelNowEstimated: try columns.next(Bool.self)))
        }
        return reports
    }

    /// What every list row adds to the report's columns: the venue's name, the device, the cell now.
    private static let rowColumns = """
        \(StoredReport.columns), v.name, d.id, d.client_id, l.level_dbfs, COALESCE(l.estimated, false)
        """

    private static let rowJoins = """
        JOIN venues v ON v.id = r.venue_id
        LEFT JOIN devices d ON d.id = r.device_id
        LEFT JOIN loudness_cells l ON l.venue_id = r.venue_id AND l.weekday = r.weekday AND l.hour = r.hour
        """

    /// The page is cut first along `venue_reports_created_idx` (or, for one status,
    /// `venue_reports_status_created_idx`); the rest is read for its rows only.
    static func listQuery(status: ReportStatus?, limit: Int, offset: Int) -> PostgresQuery {
        // A constant condition (statuses are the enum's own words), so that the planner picks
        // the index for it: created_at alone for all, (status, created_at) for one.
        let filter = status.map { "status = '\($0.rawValue)'" } ?? "true"
        return """
            SELECT \(unescaped: rowColumns)
            FROM (SELECT * FROM venue_reports WHERE \(unescaped: filter)
                  ORDER BY created_at DESC, id DESC LIMIT \(limit) OFFSET \(offset)) r
            \(unescaped: rowJoins)
            ORDER BY r.created_at DESC, r.id DESC LIMIT \(limit)
            """
    }

    static func openQuery(venueID: Int64, limit: Int) -> PostgresQuery {
        """
        SELECT \(unescaped: rowColumns)
        FROM (SELECT * FROM venue_reports WHERE venue_id = \(venueID) AND status = 'open'
              ORDER BY created_at DESC, id DESC LIMIT \(limit)) r
        \(unescaped: rowJoins)
        ORDER BY r.created_at DESC, r.id DESC LIMIT \(limit)
        """
    }

    /// Open disputing reports are few (admins close them), so grouping them all is cheap; the
    /// partial index `venue_reports_open_cell_idx` holds exactly them.
    static func disputedCellsQuery(minimumDevices: Int, limit: Int) -> PostgresQuery {
        """
        SELECT v.external_id, v.name, g.weekday, g.hour, g.quieter, g.louder, g.devices, g.latest,
               l.level_dbfs, COALESCE(l.estimated, false)
        FROM (SELECT venue_id, weekday, hour,
                     count(*) FILTER (WHERE felt = 'quieter') AS quieter,
                     count(*) FILTER (WHERE felt = 'louder') AS louder,
                     count(DISTINCT device_sha256) AS devices, max(created_at) AS latest
              FROM venue_reports WHERE status = 'open' AND felt <> 'about right'
              GROUP BY venue_id, weekday, hour
              HAVING count(DISTINCT device_sha256) >= \(minimumDevices)
              ORDER BY max(created_at) DESC, venue_id DESC, weekday, hour LIMIT \(limit)) g
        JOIN venues v ON v.id = g.venue_id
        LEFT JOIN loudness_cells l ON l.venue_id = g.venue_id AND l.weekday = g.weekday AND l.hour = g.hour
        ORDER BY g.latest DESC, g.venue_id DESC, g.weekday, g.hour
        """
    }
}
