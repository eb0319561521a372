import Foundation
import HearClearEngine
import HearClearModel
import LoudnessCore

/// The context of `venue.mustache`.
struct VenuePage {
    struct Checkin {
        let shortID: String
        let link: String
        let started: String
        let status: String
        let reasons: String?
        let override: String?
        let model: String
        let device: String
        let level: String
        let validShare: String
    }

    let title: String
    let chrome: AdminChrome
    let name: String
    let externalID: String
    let coordinates: String
    let mapLink: String
    let timezone: String
    let address: String?
    let category: String?
    let created: String
    let updated: String
    let lastCheckin: String
    let checkinCount: String
    let overall: String?
    let heatMap: HeatMap?
    let checkins: [Checkin]
    let hasCheckins: Bool
    let previous: String?
    let next: String?
    /// Its open reports, newest first.
    let reports: [AdminReportView]
    let hasReports: Bool
    /// Its lasting changes of level and their evidence; nil when it has none.
    let changes: VenueChangesSection?
    let notice: String?

    init(
        chrome: AdminChrome, venue: Venue, checkinCount: Int, lastCheckinAt: Date?, checkins: [AdminVenueCheckinRow],
        referenceOffsetDB: Double, heatMap: HeatMap?, overall: (levelDB: Double, label: String)?, previous: String?,
        next: String?, reports: [AdminReportView] = [], changes: VenueChangesSection? = nil, notice: String? = nil
    ) {
        title = venue.name
        self.chrome = chrome
        name = venue.name
        externalID = venue.externalID
        let latitude = String(format: "%.5f", venue.latitude)
        let longitude = String(format: "%.5f", venue.longitude)
        coordinates = "\(latitude), \(longitude)"
        mapLink = "https://www.openstreetmap.org/?mlat=\(latitude)&mlon=\(longitude)#map=18/\(latitude)/\(longitude)"
        timezone = venue.timezone ?? "unknown (hours from each sample's UTC offset)"
        address = venue.address
        category = venue.category
        created = AdminFormat.time(venue.createdAt)
        updated = AdminFormat.time(venue.updatedAt)
        lastCheckin = AdminFormat.time(lastCheckinAt)
        self.checkinCount = AdminFormat.count(checkinCount)
        self.heatMap = heatMap
        self.overall = overall.map { "\(AdminFormat.decimal($0.levelDB)) dB, \($0.label) (median of its cells)" }
        self.checkins = checkins.map { row in
            let level = row.levelDBFS.map { $0 + row.modelOffsetDB + referenceOffsetDB }
            return Checkin(
                shortID: AdminFormat.shortCheckinID(row.id), link: "/farmer/checkins/\(row.id.uuidString.lowercased())",
                started: AdminFormat.minute(row.startedAt), status: row.status.rawValue,
                reasons: AdminFormat.reasons(row.reasons),
                override: row.override.map { "forced \($0)" }, model: row.deviceModel ?? "unknown model",
                device: DeviceIdentity.shortened(row.deviceClientID), level: AdminFormat.decimal(level),
                validShare: row.validSeconds.map { AdminFormat.percent($0, of: row.sampleCount) } ?? "–"
            )
        }
        hasCheckins = !checkins.isEmpty
        self.previous = previous
        self.next = next
        self.reports = reports
        hasReports = !reports.isEmpty
        self.changes = changes
        self.notice = notice
    }
}
