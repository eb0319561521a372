import Foundation
import HearClearEngine
import HearClearModel
import LoudnessCore

/// A report as the admin's lists show it (`report-table.mustache`): what was said about which
/// cell, beside the level the server showed then and the level now. The comment is printed only
/// through `{{ }}` (escaped); the device only shortened.
struct AdminReportView {
    let shortID: String
    let received: String
    let venueName: String
    let venueLink: String
    let cell: String
    let at: String
    let felt: String
    /// `quieter`, `louder` or `about-right`: the tag's style.
    let feltClass: String
    let comment: String?
    let shown: String
    let now: String
    /// Now less shown, when both exist and differ: `+1.2 dB`.
    let change: String?
    let device: String
    let status: String
    let isOpen: Bool
    /// Who closed it, when, and why.
    let closed: String?
    let resolveAction: String
    let dismissAction: String
    /// Where the actions come back to.
    let back: String

    init(_ row: AdminReportRow, bands: Bands, referenceOffsetDB: Double, back: String) {
        let report = row.report
        let id = report.id.uuidString.lowercased()
        shortID = String(id.prefix(8))
        received = AdminFormat.minute(report.createdAt)
        venueName = row.venueName
        venueLink = "/farmer/venues/\(report.venueExternalID)"
        cell = Self.cellName(report.position)
        at = AdminFormat.minute(report.at)
        felt = report.felt == .aboutRight ? "about right" : "felt \(report.felt.rawValue)"
        feltClass = report.felt == .aboutRight ? "about-right" : report.felt.rawValue
        comment = report.comment
        shown =
            report.shown.map { Self.level($0.levelDB, label: $0.label, estimated: $0.estimated) } ?? "nothing shown"
        let nowDB = row.levelNowDBFS.map { LoudnessReads.rounded($0 + referenceOffsetDB) }
        now = Self.levelNow(nowDB, estimated: row.levelNowEstimated, bands: bands)
        if let nowDB, let then = report.shown?.levelDB, abs(nowDB - then) >= 0.05 {
            change = AdminFormat.signed(nowDB - then) + " dB since"
        } else {
            change = nil
        }
        device =
            row.deviceClientID.map { DeviceIdentity.shortened($0) + (row.deviceKey.map { " #\($0)" } ?? "") }
            ?? "no check-ins yet"
        status = report.status.rawValue
        isOpen = report.status == .open
        closed = report.resolvedAt.map { time in
            [
                "by \(report.resolvedBy ?? "?") \(AdminFormat.minute(time))", report.resolutionNote,
            ].compactMap { $0 }.joined(separator: " — ")
        }
        resolveAction = "/farmer/reports/\(id)/resolve"
        dismissAction = "/farmer/reports/\(id)/dismiss"
        self.back = back
    }

    /// `Friday 21:00`.
    static func cellName(_ position: CellPosition) -> String {
        let day = LocalHour.weekdayNames[position.weekday - 1].capitalized
        return "\(day) \(position.hour < 10 ? "0" : "")\(position.hour):00"
    }

    /// `72.0 dB moderate`, `(estimate)` after an estimated cell's.
    static func level(_ levelDB: Double, label: String, estimated: Bool) -> String {
        "\(AdminFormat.decimal(levelDB)) dB \(label)" + (estimated ? " (estimate)" : "")
    }

    /// A cell's level now (calibrated, rounded), labelled by `bands`; `no data` without a cell.
    static func levelNow(_ levelDB: Double?, estimated: Bool, bands: Bands) -> String {
        levelDB.map {
            level($0, label: LoudnessReads.label(ofCalibratedDB: $0, bands: bands), estimated: estimated)
        } ?? "no data"
    }
}

/// The context of `reports.mustache`.
struct ReportsPage {
    struct Filter {
        let label: String
        let link: String
        let current: Bool
    }

    let title = "Reports"
    let chrome: AdminChrome
    let filters: [Filter]
    /// What the list says when it is empty.
    let empty: String
    let reports: [AdminReportView]
    let hasReports: Bool
    let page: Int
    let previous: String?
    let next: String?
    let notice: String?
    let reviewDevices = ReportReview.minimumDevices

    init(
        chrome: AdminChrome, status: ReportStatus?, reports: [AdminReportView], page: Int, previous: String?,
        next: String?, notice: String?
    ) {
        self.chrome = chrome
        filters = ([ReportStatus.open, .resolved, .dismissed].map(Optional.some) + [nil]).map { filter in
            Filter(
                label: filter?.rawValue.capitalized ?? "All",
                link: "/farmer/reports?status=\(filter?.rawValue ?? "all")",
                current: filter == status)
        }
        empty = status.map { "No \($0.rawValue) reports." } ?? "No reports."
        self.reports = reports
        hasReports = !reports.isEmpty
        self.page = page
        self.previous = previous
        self.next = next
        self.notice = notice
    }

    /// The notice after an action (`done=` in the address).
    static func notice(for code: String) -> String? {
        switch code {
        case "resolved": "Report resolved."
        case "dismissed": "Report dismissed."
        case "unchanged": "The report was already closed."
        default: nil
        }
    }
}
