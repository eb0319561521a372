import Foundation
import HearClearModel
import Logging
import LoudnessCore
import PostgresNIO

/// `venue_reports`: storing reports of wrong data, finding the cell each is about, and an
/// admin's resolving or dismissing one (docs/ARCHITECTURE.md, "Reports").
public struct ReportRepository: Sendable {
    let client: PostgresClient
    let logger: Logger

    public init(client: PostgresClient, logger: Logger) {
        self.client = client
        self.logger = logger
    }

    /// The venue and the venue-local cell that `at` falls in, with the cell as stored; `nil` for
    /// an unknown venue. The clock is search's (`venue_cell_index`): the venue's zone when
    /// PostgreSQL knows it, else the UTC offset its check-ins carried most often (`venue_levels`),
    /// else `utcOffsetMinutes`, the offset the report's own time was written with (as a
    /// check-in's samples decide for a venue without a zone).
    public func target(venueExternalID: String, at: Date, utcOffsetMinutes: Int) async throws -> ReportTarget? {
        let rows = try await client.query(
            """
            SELECT v.id, c.cell, l.venue_id IS NOT NULL, \(unescaped: StoredCell.columns)
            FROM venues v
            LEFT JOIN venue_levels s ON s.venue_id = v.id
            CROSS JOIN LATERAL (SELECT COALESCE(
                venue_cell_index(\(at), known_time_zone(v.timezone), NULL),
                venue_cell_index(\(at), NULL, s.utc_offset_min),
                venue_cell_index(\(at), NULL, \(Int16(clamping: utcOffsetMinutes))::smallint)) AS cell) c
            LEFT JOIN loudness_cells l ON l.venue_id = v.id AND (l.weekday - 1) * 24 + l.hour + 1 = c.cell
            WHERE v.external_id = \(venueExternalID)
            """,
            logger: logger)
        for try await row in rows {
            var columns = ColumnReader(row)
            let venueID: Int64 = try columns.next()
            let index = Int(try columns.next(Int32.self)) - 1
            let position = CellPosition(weekday: index / 24 + 1, hour: index % 24)
            let hasCell: Bool = try columns.next()
            return ReportTarget(
                venueID: venueID, position: position, cell: hasCell ? try StoredCell(reading: &columns) : nil)
        }
        return nil
    }

    /// What storing a report did.
    public enum Insertion: Sendable, Equatable {
        case created(StoredReport)
        /// The device had already reported on this venue at this instant: the stored report.
        case existing(StoredReport)
    }

    /// Stores the report, unless the device already reported on the venue at that very instant
    /// (then the stored one is answered and nothing is written). The device's id is hashed by
    /// the statement and linked to its `devices` row when it has one; it is not stored.
    public func insert(_ report: NewReport) async throws -> Insertion {
        let inserted = try await firstReport(
            """
            WITH inserted AS (
                INSERT INTO venue_reports (venue_id, device_sha256, device_id, at, weekday, hour, felt, comment,
                                           shown_level_db, shown_label, shown_estimated)
                VALUES (\(report.venueID), sha256(convert_to(\(report.deviceID), 'UTF8')),
                        (SELECT id FROM devices WHERE client_id = \(report.deviceID)), \(report.at),
                        \(Int16(report.position.weekday)), \(Int16(report.position.hour)), \(report.felt.rawValue),
                        \(report.comment), \(report.shown.map { Float($0.levelDB) })::real, \(report.shown?.label),
                        \(report.shown?.estimated))
                ON CONFLICT (venue_id, device_sha256, at) DO NOTHING
                RETURNING *)
            SELECT \(unescaped: StoredReport.columns) FROM inserted r JOIN venues v ON v.id = r.venue_id
            """)
        if let inserted { return .created(inserted) }
        let existing = try await firstReport(
            """
            SELECT \(unescaped: StoredReport.columns) FROM venue_reports r JOIN venues v ON v.id = r.venue_id
            WHERE r.venue_id = \(report.venueID) AND r.device_sha256 = sha256(convert_to(\(report.deviceID), 'UTF8'))
              AND r.at = \(report.at)
            """)
        guard let existing else { throw StoreError.unexpected("a report conflicted with one that cannot be found") }
        return .existing(existing)
    }

    /// The report, when it is about the venue `venueExternalID`.
    public func find(id: UUID, venueExternalID: String) async throws -> StoredReport? {
        try await firstReport(
            """
            SELECT \(unescaped: StoredReport.columns) FROM venue_reports r JOIN venues v ON v.id = r.venue_id
            WHERE r.id = \(id) AND v.external_id = \(venueExternalID)
            """)
    }

    /// What closing a report did.
    public typealias Closing = ReportClosing

    /// Resolves or dismisses an open report (`status` must not be `open`), recording who, when
    /// and why. A report already closed is left as it is.
    public func close(id: UUID, as status: ReportStatus, by username: String, note: String?) async throws -> Closing {
        precondition(status != .open, "a report is closed as resolved or dismissed")
        let closed = try await firstReport(
            """
            WITH closed AS (
                UPDATE venue_reports SET status = \(status.rawValue), resolved_at = now(), resolved_by = \(username),
                       resolution_note = \(note)
                WHERE id = \(id) AND status = 'open'
                RETURNING *)
            SELECT \(unescaped: StoredReport.columns) FROM closed r JOIN venues v ON v.id = r.venue_id
            """)
        if let closed { return .closed(closed) }
        let existing = try await firstReport(
            "SELECT \(unescaped: StoredReport.columns) FROM venue_reports r JOIN venues v ON v.id = r.venue_id WHERE r.id = \(id)"
        )
        return existing.map(Closing.alreadyClosed) ?? .notFound
    }

    /// Every report sent by the device whose stored (keyed) id is `keyedDeviceID`, oldest first.
    public func reports(ofDevice keyedDeviceID: String) async throws -> [StoredReport] {
        let rows = try await client.query(
            """
            SELECT \(unescaped: StoredReport.columns) FROM venue_reports r JOIN venues v ON v.id = r.venue_id
            WHERE r.device_sha256 = sha256(convert_to(\(keyedDeviceID), 'UTF8')) ORDER BY r.created_at, r.id
            """, logger: logger)
        var reports: [StoredReport] = []
        for try await row in rows {
            var columns = ColumnReader(row)
            reports.append(try StoredReport(reading: &columns))
        }
        return reports
    }

    /// The first report `query` answers (it selects ``StoredReport/columns``), `nil` for none.
    private func firstReport(_ query: PostgresQuery) async throws -> StoredReport? {
        let rows = try await client.query(query, logger: logger)
        for try await row in rows {
            var columns = ColumnReader(row)
            return try StoredReport(reading: &columns)
        }
        return nil
    }
}
