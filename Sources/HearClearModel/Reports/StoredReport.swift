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

    public init(
        id: UUID, venueID: Int64, venueExternalID: String, deviceSHA256: Data, at: Date, position: CellPosition,
        felt: ReportFeeling, comment: String? = nil, shown: Shown? = nil, status: ReportStatus, createdAt: Date,
        resolvedAt: Date? = nil, resolvedBy: String? = nil, resolutionNote: String? = nil
    ) {
        self.id = id
        self.venueID = venueID
        self.venueExternalID = venueExternalID
        self.deviceSHA256 = deviceSHA256
        self.at = at
        self.position = position
        self.felt = felt
        self.comment = comment
        self.shown = shown
        self.status = status
        self.createdAt = createdAt
        self.resolvedAt = resolvedAt
        self.resolvedBy = resolvedBy
        self.resolutionNote = resolutionNote
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

    public init(venueID: Int64, position: CellPosition, cell: StoredCell? = nil) {
        self.venueID = venueID
        self.position = position
        self.cell = cell
    }
}
