import Foundation
import HearClearModel
import LoudnessCore

extension StoredReport {
    /// The columns of `venue_reports r` joined to `venues v`, in the order ``init(reading:)`` reads them.
    static let columns = """
        r.id, r.venue_id, v.external_id, r.device_sha256, r.at, r.weekday, r.hour, r.felt, r.comment,
        r.shown_level_db, r.shown_label, r.shown_estimated, r.status, r.created_at, r.resolved_at, r.resolved_by,
        r.resolution_note
        """

    init(reading columns: inout ColumnReader) throws {
        let id: UUID = try columns.next()
        let venueID: Int64 = try columns.next()
        let venueExternalID: String = try columns.next()
        let deviceSHA256: Data = try columns.next()
        let at: Date = try columns.next()
        let position = CellPosition(
            weekday: Int(try columns.next(Int16.self)), hour: Int(try columns.next(Int16.self)))
        let felt: String = try columns.next()
        guard let feeling = ReportFeeling(rawValue: felt) else {
            throw StoreError.unexpected("unknown venue_reports.felt '\(felt)'")
        }
        let comment: String? = try columns.next()
        let level = try columns.next(Float?.self)
        let label = try columns.next(String?.self)
        let estimated = try columns.next(Bool?.self)
        var shown: Shown?
        if let level, let label, let estimated {
            // Stored as real: back to the 0.1 dB it was when shown.
            shown = Shown(levelDB: (Double(level) * 10).rounded() / 10, label: label, estimated: estimated)
        }
        let status: String = try columns.next()
        guard let reportStatus = ReportStatus(rawValue: status) else {
            throw StoreError.unexpected("unknown venue_reports.status '\(status)'")
        }
        self.init(
            id: id, venueID: venueID, venueExternalID: venueExternalID, deviceSHA256: deviceSHA256, at: at,
            position: position, felt: feeling, comment: comment, shown: shown, status: reportStatus,
            createdAt: try columns.next(), resolvedAt: try columns.next(), resolvedBy: try columns.next(),
            resolutionNote: try columns.next())
    }
}
