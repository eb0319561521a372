import Foundation
import HearClearEngine
import HearClearModel
import LoudnessCore

/// The context of `dashboard.mustache`.
struct DashboardPage {
    struct Figure {
        let label: String
        let value: String
        let detail: String?
    }

    struct Venue {
        let name: String
        let link: String
        let lastCheckin: String
        let checkins: String
    }

    struct Device {
        let shortID: String
        let key: Int64
        let model: String
        let lastSeen: String
        let excluded: Bool
    }

    struct Checkin {
        let shortID: String
        let link: String
        let venue: String
        let status: String
        let reasons: String?
        let received: String
        let samples: String
    }

    struct Action {
        let at: String
        let user: String
        let action: String
        let subject: String?
        let detail: String?
    }

    /// Open reports, and the cells whose open "quieter"/"louder" reports come from enough
    /// devices to be reviewed (``ReportReview``).
    struct Reports {
        struct Cell {
            let venueName: String
            let link: String
            let cell: String
            let said: String
            let devices: String
            let now: String
            let latest: String
        }

        let open: String
        let cells: [Cell]
        let hasCells: Bool
        /// More disputed cells than are listed.
        let more: Bool
        let minimumDevices = ReportReview.minimumDevices

        init(open: Int, disputed: [AdminDisputedCell], shown: Int, bands: Bands, referenceOffsetDB: Double) {
            self.open = AdminFormat.count(open)
            cells = disputed.prefix(shown).map { row in
                let said = [(row.louder, "louder"), (row.quieter, "quieter")].filter { $0.0 > 0 }
                    .map { "\($0.0) \($0.1)" }.joined(separator: ", ")
                let now = row.levelNowDBFS.map { LoudnessReads.rounded($0 + referenceOffsetDB) }
                return Cell(
                    venueName: row.venueName, link: "/farmer/venues/\(row.venueExternalID)",
                    cell: AdminReportView.cellName(row.position), said: said, devices: AdminFormat.count(row.devices),
                    now: AdminReportView.levelNow(now, estimated: row.levelNowEstimated, bands: bands),
                    latest: AdminFormat.minute(row.latestAt))
            }
            hasCells = !cells.isEmpty
            more = disputed.count > shown
        }
    }

    let title = "Dashboard"
    let chrome: AdminChrome
    let totals: [Figure]
    let statuses: [Figure]
    let totalsAsOf: String
    let queue: [Figure]
    let venues: [Venue]
    let hasVenues: Bool
    let devices: [Device]
    let checkins: [Checkin]
    let actions: [Action]
    let reports: Reports

    init(
        chrome: AdminChrome, totals: (totals: AdminOverview.Totals, readAt: Date), queue: AdminOverview.Queue,
        venues: [AdminOverview.RecentVenue], devices: [AdminOverview.RecentDevice],
        checkins: [AdminOverview.RecentCheckin], actions: [AdminAuditEntry], reports: Reports
    ) {
        self.chrome = chrome
        self.reports = reports
        let t = totals.totals
        self.totals = [
            Figure(label: "Venues", value: AdminFormat.count(t.venues), detail: nil),
            Figure(label: "Devices", value: AdminFormat.count(t.devices), detail: nil),
            Figure(label: "Check-ins", value: AdminFormat.count(t.checkins), detail: nil),
            Figure(label: "Samples", value: AdminFormat.count(t.samples), detail: "seconds of audio levels"),
        ]
        statuses = [
            ("Pending", t.pending), ("Included", t.included), ("Outlier", t.outlier), ("Excluded", t.excluded),
        ].map { label, count in
            Figure(label: label, value: AdminFormat.count(count), detail: AdminFormat.percent(count, of: t.checkins))
        }
        totalsAsOf = AdminFormat.time(totals.readAt)
        let oldest = queue.oldestEnqueuedAt.map { AdminFormat.age(queue.readAt.timeIntervalSince($0)) }
        self.queue = [
            Figure(label: "Queued entries", value: AdminFormat.count(queue.entries), detail: nil),
            Figure(label: "Venues waiting", value: AdminFormat.count(queue.venues), detail: nil),
            Figure(label: "Oldest entry", value: oldest ?? "–", detail: oldest == nil ? "queue empty" : "waiting"),
        ]
        self.venues = venues.map {
            Venue(
                name: $0.name, link: "/farmer/venues/\($0.externalID)",
                lastCheckin: AdminFormat.minute($0.lastCheckinAt),
                checkins: AdminFormat.count($0.checkins)
            )
        }
        hasVenues = !venues.isEmpty
        self.devices = devices.map {
            Device(
                shortID: DeviceIdentity.shortened($0.clientID), key: $0.key, model: $0.model ?? "unknown model",
                lastSeen: AdminFormat.minute($0.lastSeenAt), excluded: $0.excluded
            )
        }
        self.checkins = checkins.map {
            Checkin(
                shortID: AdminFormat.shortCheckinID($0.id), link: "/farmer/checkins/\($0.id.uuidString.lowercased())",
                venue: $0.venueName, status: $0.status.rawValue, reasons: AdminFormat.reasons($0.reasons),
                received: AdminFormat.minute($0.receivedAt), samples: AdminFormat.count($0.sampleCount)
            )
        }
        self.actions = actions.map {
            Action(
                at: AdminFormat.minute($0.at), user: $0.username, action: $0.action, subject: $0.subject,
                detail: $0.detail)
        }
    }
}
