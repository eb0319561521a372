import Foundation
import HearClearModel
import HearClearStore
import LoudnessCore

/// A report of wrong data as received: the venue, the device, the instant it is about (with the
/// UTC offset it was written with), what the person felt and an optional comment.
public struct ReportSubmission: Sendable, Equatable {
    public var venueExternalID: String
    /// The device's id as check-ins name it; only its SHA-256 is stored.
    public var deviceID: String
    public var at: Date
    public var utcOffsetMinutes: Int
    public var felt: ReportFeeling
    public var comment: String?

    /// A report as received, before it is checked and stored.
    public init(
        venueExternalID: String, deviceID: String, at: Date, utcOffsetMinutes: Int, felt: ReportFeeling,
        comment: String?
    ) {
        self.venueExternalID = venueExternalID
        self.deviceID = deviceID
        self.at = at
        self.utcOffsetMinutes = utcOffsetMinutes
        self.felt = felt
        self.comment = comment
    }
}

/// What became of a report.
public enum ReportOutcome: Sendable, Equatable {
    case created(StoredReport)
    /// The device had sent this very report before (same venue, instant, felt and comment).
    case duplicate(StoredReport)
    /// The device had reported on this venue at this instant with something else.
    case conflict(StoredReport)
    case unknownVenue
}

/// A report whose device id is keyed (``VenueReports/keyed(_:)``), as it is rate-limited and stored.
public struct KeyedReport: Sendable {
    /// The submission, its device id keyed.
    let submission: ReportSubmission
    /// The keyed device id: what the rate limits count.
    public var device: String { submission.deviceID }
}

/// Reports of wrong data (docs/ARCHITECTURE.md, "Reports"): each is stored beside the cell it is
/// about and what the server showed for it, labelled as the readers label (``LoudnessReads``);
/// admins resolve or dismiss them.
public struct VenueReports: Sendable {
    let reports: ReportRepository
    let loudness: LoudnessReads
    /// A report names its device by the keyed id (``DeviceKey``), as check-ins do.
    let deviceKey: DeviceKey

    /// The report with its device id keyed, once: the form it is rate-limited and stored in.
    public func keyed(_ submission: ReportSubmission) -> KeyedReport {
        var submission = submission
        submission.deviceID = deviceKey.keyed(submission.deviceID)
        return KeyedReport(submission: submission)
    }

    /// Keys the report's device id, then stores it as a keyed report.
    public func submit(_ submission: ReportSubmission, bands: () async throws -> Bands) async throws -> ReportOutcome {
        try await submit(keyed(submission), bands: bands)
    }

    /// Finds the cell the report is about and what the server shows for it (with `bands`, asked
    /// only when there is a cell), and stores the report with that. A report about a venue or
    /// an hour without data is kept all the same, with nothing shown.
    public func submit(_ keyed: KeyedReport, bands: () async throws -> Bands) async throws -> ReportOutcome {
        let submission = keyed.submission
        guard
            let target = try await reports.target(
                venueExternalID: submission.venueExternalID, at: submission.at,
                utcOffsetMinutes: submission.utcOffsetMinutes)
        else { return .unknownVenue }
        var shown: StoredReport.Shown?
        if let stored = target.cell {
            let cell = loudness.cell(stored, bands: try await bands())
            shown = StoredReport.Shown(levelDB: cell.levelDB, label: cell.label, estimated: cell.estimated)
        }
        let report = NewReport(
            venueID: target.venueID, deviceID: submission.deviceID, at: submission.at,
            position: target.position,
            felt: submission.felt, comment: submission.comment, shown: shown)
        switch try await reports.insert(report) {
        case .created(let stored):
            return .created(stored)
        case .existing(let stored):
            return stored.sameContent(felt: submission.felt, comment: submission.comment)
                ? .duplicate(stored) : .conflict(stored)
        }
    }

    /// The report, when it is about the venue `venueExternalID`.
    public func find(id: UUID, venueExternalID: String) async throws -> StoredReport? {
        try await reports.find(id: id, venueExternalID: venueExternalID)
    }

    /// An admin resolves (acted on it) or dismisses the open report.
    public func close(
        id: UUID, as status: ReportStatus, by username: String, note: String?
    ) async throws -> ReportClosing {
        try await reports.close(id: id, as: status, by: username, note: note)
    }
}
