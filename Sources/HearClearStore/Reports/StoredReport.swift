import Foundation
import LoudnessCore

/// One row of `venue_reports`: someone's word on how loud a venue was at an instant, beside
/// what the server showed for that venue-local hour then.
public struct StoredReport: Sendable, Equatable {
    /// What the server showed for the cell when the report arrived.
    public struct Shown: Sendable, Equatable {
        /// Calibrated dB, rounded to 0.1 as reported.
        public var levelDB: Double
        public var label: String
        /// The cell was an estimate, not measured.
        public var estimated: Bool

        public init(levelDB: Double, label: String, estimated: Bool) {
            self.levelDB = levelDB
            self.label = label
            self.estimated = estimated
        }
    }

    public var id: UUID
    public var venueID: Int64
    public var venueExternalID: String
    /// SHA-256 of the device's id; the id itself is not stored.
    public var deviceSHA256: Data
    public var at: Date
    /// The venue-local cell `at` falls in.
    public var position: CellPosition
    public var felt: ReportFeeling
    public var comment: String?
    /// `nil` when the server showed nothing for that cell.
    public var shown: Shown?
    public var status: ReportStatus
    public var createdAt: Date
    /// When an admin resolved or dismissed it.
    public var resolvedAt: Date?
    public var resolvedBy: String?
    public var resolutionNote: String?

    /// The same report sent again: the same felt and comment (venue, device and instant are
    /// the table's key).
    public func sameContent(felt: ReportFeeling, comment: String?) -> Bool {
        self.felt == felt && self.comment == comment
    }
}

extension StoredReport {
    /// The columns of `venue_reports r` joined to `venues v`, in the order ``init(reading:)`` reads them.
    static let columns = """
        r.id, r.venue_id, v.external_id, r.device_sha256, r.at, r.weekday, r.hour, r.felt, r.comment,
        r.shown_level_db, r.shown_label, r.shown_estimated, r.status, r.created_at, r.resolved_at, r.resolved_by,
        r.resolution_note
        """

    init(reading columns: inout ColumnReader) throws {
        id = try columns.next()
        venueID = try columns.next()
        venueExternalID = try columns.next()
        deviceSHA256 = try columns.next()
        at = try columns.next()
        position = CellPosition(
            weekday: Int(try columns.next(Int16.self)), hour: Int(try columns.next(Int16.self)))
        let felt: String = try columns.next()
        guard let feeling = ReportFeeling(rawValue: felt) else {
            throw StoreError.unexpected("unknown venue_reports.felt '\(felt)'")
        }
        self.felt = feeling
        comment = try columns.next()
        let level = try columns.next(Float?.self)
        let label = try columns.next(String?.self)
        let estimated = try columns.next(Bool?.self)
        if let level, let label, let estimated {
            // Stored as real: back to the 0.1 dB it was when shown.
            shown = Shown(levelDB: (Double(level) * 10).rounded() / 10, label: label, estimated: estimated)
        }
        let status: String = try columns.next()
        guard let reportStatus = ReportStatus(rawValue: status) else {
            throw StoreError.unexpected("unknown venue_reports.status '\(status)'")
        }
        self.status = reportStatus
        createdAt = try columns.next()
        resolvedAt = try columns.next()
        resolvedBy = try columns.next()
        resolutionNote = try columns.next()
    }
}

/// A report to store: the venue, the device's id (hashed by the statement that stores it),
/// the instant and its cell, what the person felt, and what the server showed.
public struct NewReport: Sendable, Equatable {
    public var venueID: Int64
    /// Whole: only its SHA-256 is stored.
    public var deviceID: String
    public var at: Date
    public var position: CellPosition
    public var felt: ReportFeeling
    public var comment: String?
    public var shown: StoredReport.Shown?

    public init(
        venueID: Int64, deviceID: String, at: Date, position: CellPosition, felt: ReportFeeling, comment: String?,
        shown: StoredReport.Shown?
    ) {
        self.venueID = venueID
        self.deviceID = deviceID
        self.at = at
        self.position = position
        self.felt = felt
        self.comment = comment
        self.shown = shown
    }
}

/// The venue a report is about and the cell its instant falls in, with that cell as stored.
public struct ReportTarget: Sendable, Equatable {
    public var venueID: Int64
    public var position: CellPosition
    /// `nil` when the venue has no cell there (no data, no estimate).
    public var cell: StoredCell?
}
