import Foundation
import HearClearEngine
import HearClearModel
import LoudnessCore

/// A report as answered: what was said about which cell, what the server showed there when it
/// arrived, and where it stands. Never the device.
struct ReportBody: Encodable {
    var id: String
    var venue: String
    var at: Date
    var felt: String
    @KeepsNull var comment: String?
    var cell: Cell
    var status: String
    var receivedAt: Date
    @KeepsNull var resolvedAt: Date?
    var links: [String: String]

    init(_ report: StoredReport) {
        id = report.id.uuidString.lowercased()
        venue = report.venueExternalID
        at = report.at
        felt = report.felt.rawValue
        comment = report.comment
        cell = Cell(report)
        status = report.status.rawValue
        receivedAt = report.createdAt
        resolvedAt = report.resolvedAt
        links = ["self": Self.location(of: report), "venue": "/api/v2/venues/\(report.venueExternalID)"]
    }

    var location: String { links["self"]! }

    static func location(of report: StoredReport) -> String {
        "/api/v2/venues/\(report.venueExternalID)/reports/\(report.id.uuidString.lowercased())"
    }

    /// The venue-local cell the report is about and what the server showed for it (nulls when nothing).
    struct Cell: Encodable {
        var day: String
        var hour: Int
        @KeepsNull var level: Double?
        @KeepsNull var label: String?
        @KeepsNull var estimated: Bool?

        init(_ report: StoredReport) {
            day = LocalHour.weekdayNames[report.position.weekday - 1]
            hour = report.position.hour
            level = report.shown?.levelDB
            label = report.shown?.label
            estimated = report.shown?.estimated
        }
    }
}
