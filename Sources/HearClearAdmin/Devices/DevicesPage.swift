import Foundation
import HearClearEngine
import HearClearModel
import LoudnessCore

/// The context of `devices.mustache`. Device ids are shown shortened, never whole; actions name
/// a device by its key in the database.
struct DevicesPage {
    struct Row {
        let key: Int64
        let shortID: String
        let model: String
        let checkins: String
        let outlierShare: String
        let bias: String
        /// Its trust (`device_trust`), the floor without a row.
        let trust: String
        let trustFloor: Bool
        let biasBasis: String
        let flagged: Bool
        /// More check-ins in one hour than a person makes.
        let overPace: Bool
        let busiestHour: String
        let excluded: Bool
        let excludedNote: String?
        let lastSeen: String
        let excludeAction: String
        let includeAction: String
    }

    let title = "Devices"
    let chrome: AdminChrome
    let rows: [Row]
    let hasRows: Bool
    let excludedOnly: Bool
    let page: Int
    let previous: String?
    let next: String?
    let notice: String?

    init(
        chrome: AdminChrome, rows: [AdminDeviceRow], trust: [Int64: Double] = [:], excludedOnly: Bool, page: Int,
        previous: String?, next: String?,
        notice: String?
    ) {
        self.chrome = chrome
        self.rows = rows.map { row in
            let report = DeviceReport(row.summary)
            let bias = report.bias
            return Row(
                key: report.key, shortID: report.shortID, model: report.model ?? "unknown model",
                checkins: AdminFormat.count(report.checkins),
                outlierShare: AdminFormat.percent(row.outliers, of: report.checkins),
                bias: bias.biasDB.map { AdminFormat.signed($0) + " dB" } ?? "–",
                trust: String(format: "%.2f", trust[report.key] ?? DeviceTrust.floor),
                trustFloor: trust[report.key] == nil,
                biasBasis: bias.checkinCount == 1 ? "1 shared check-in" : "\(bias.checkinCount) shared check-ins",
                flagged: bias.isFlagged, overPace: row.isOverHumanPace,
                busiestHour: "\(row.busiestHourCheckins) in its busiest hour", excluded: report.excluded,
                excludedNote: row.summary.note,
                lastSeen: AdminFormat.minute(report.lastSeenAt),
                excludeAction: "/farmer/devices/\(report.key)/exclude",
                includeAction: "/farmer/devices/\(report.key)/include"
            )
        }
        hasRows = !rows.isEmpty
        self.excludedOnly = excludedOnly
        self.page = page
        self.previous = previous
        self.next = next
        self.notice = notice
    }

    static func notice(for code: String) -> String? {
        switch code {
        case "excluded": "Device excluded. Its venues are being recomputed; their cells follow within seconds."
        case "included": "Device included again. Its venues are being recomputed; their cells follow within seconds."
        case "unchanged": "The device was already in that state."
        default: nil
        }
    }
}
