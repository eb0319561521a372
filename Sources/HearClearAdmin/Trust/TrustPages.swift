import Foundation
import HearClearEngine
import HearClearModel
import LoudnessCore

/// The context of `changes.mustache`: venues' changes, most recently detected first.
struct ChangesPage {
    let title = "Venue changes"
    let chrome: AdminChrome
    let rows: [VenueChangeView]
    let hasRows: Bool
    let showVenue = true
    let page: Int
    let previous: String?
    let next: String?

    init(chrome: AdminChrome, rows: [AdminVenueChangeRow], page: Int, previous: String?, next: String?) {
        self.chrome = chrome
        self.rows = rows.map { VenueChangeView($0, csrf: chrome.csrf) }
        hasRows = !rows.isEmpty
        self.page = page
        self.previous = previous
        self.next = next
    }
}

/// The context of `campaigns.mustache`: open campaigns with their actions, then decided ones.
struct CampaignsPage {
    struct Row {
        let id: Int64
        let venue: String
        let venueLink: String
        let direction: String
        let devices: String
        let checkins: String
        let deviation: String
        let moves: String
        let wouldMove: String
        let detected: String
        let updated: String
        let status: String
        let decided: String?
        let excludeAction: String
        let dismissAction: String
    }

    let title = "Campaigns"
    let chrome: AdminChrome
    let open: [Row]
    let hasOpen: Bool
    let decided: [Row]
    let hasDecided: Bool
    let page: Int
    let previous: String?
    let next: String?
    let notice: String?

    init(
        chrome: AdminChrome, rows: [AdminCampaignRow], page: Int, previous: String?, next: String?, notice: String?
    ) {
        self.chrome = chrome
        let all = rows.map(Self.row)
        open = all.filter { $0.status == StoredCampaign.Status.open.rawValue }
        decided = all.filter { $0.status != StoredCampaign.Status.open.rawValue }
        hasOpen = !open.isEmpty
        hasDecided = !decided.isEmpty
        self.page = page
        self.previous = previous
        self.next = next
        self.notice = notice
    }

    static func row(_ row: AdminCampaignRow) -> Row {
        let campaign = row.campaign
        let id = campaign.id ?? 0
        return Row(
            id: id, venue: row.venueName, venueLink: "/farmer/venues/\(row.venueExternalID)",
            direction: campaign.direction.rawValue, devices: AdminFormat.count(campaign.devices.count),
            checkins: AdminFormat.count(campaign.checkins),
            deviation: AdminFormat.signed(campaign.deviationDB) + " dB",
            moves: AdminFormat.signed(campaign.movesDB) + " dB",
            wouldMove: AdminFormat.signed(campaign.wouldMoveDB) + " dB",
            detected: AdminFormat.minute(campaign.detectedAt), updated: AdminFormat.minute(campaign.updatedAt),
            status: campaign.status.rawValue,
            decided: campaign.status == .open
                ? nil
                : "\(campaign.status.rawValue) by \(campaign.decidedBy ?? "?") "
                    + AdminFormat.minute(campaign.decidedAt),
            excludeAction: "/farmer/campaigns/\(id)/exclude", dismissAction: "/farmer/campaigns/\(id)/dismiss")
    }

    static func notice(for code: String) -> String? {
        switch code {
        case "excluded":
            "Campaign excluded: its devices are excluded, and every venue they checked in at is being judged again."
        case "dismissed":
            "Campaign dismissed: its devices count normally; the venue is being judged again."
        case "unchanged": "That campaign was already decided."
        default: nil
        }
    }
}
