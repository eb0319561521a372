import Foundation
import HearClearEngine
import HearClearModel

/// Gathers what the page of one venue shows.
struct AdminVenueDetails: Sendable {
    /// Open reports shown on a venue's page, newest first (all are on `/farmer/reports`).
    static let openReportsShown = 20

    let venues: AdminVenueReads
    let reports: AdminReportReads
    let directory: VenueDirectory
    let loudness: LoudnessReads
    let trust: AdminTrustReads
    let referenceOffsetDB: Double

    func page(venue: Venue, chrome: AdminChrome, paging: AdminPaging, notice: String?) async throws -> VenuePage {
        async let count = directory.checkinCount(venueID: venue.id)
        async let lastCheckin = venues.lastCheckinAt(venueID: venue.id)
        async let rows = venues.checkins(venueID: venue.id, limit: paging.limit, offset: paging.offset)
        async let openReports = reports.open(venueID: venue.id, limit: Self.openReportsShown)
        async let changes = self.changes(venueID: venue.id, csrf: chrome.csrf)
        let bands = try await loudness.currentBands()
        let cells = try await loudness.cells(venueID: venue.id, bands: bands)
        let shown = paging.cut(try await rows, base: "/farmer/venues/\(venue.externalID)")
        return try await VenuePage(
            chrome: chrome, venue: venue, checkinCount: count, lastCheckinAt: lastCheckin,
            checkins: shown.rows, referenceOffsetDB: referenceOffsetDB,
            heatMap: cells.isEmpty ? nil : HeatMap(cells: cells, bands: bands),
            overall: LoudnessReads.overall(cells, bands: bands),
            previous: shown.previous, next: shown.next,
            reports: try await openReports.map {
                AdminReportView(
                    $0, bands: bands, referenceOffsetDB: referenceOffsetDB, back: "/farmer/venues/\(venue.externalID)")
            },
            changes: try await changes, notice: notice
        )
    }

    /// The venue's changes, and the evidence of the one in force from the venue judged again in
    /// memory (only when it has changes: the judgement reads every check-in).
    func changes(venueID: Int64, csrf: String) async throws -> VenueChangesSection? {
        let rows = try await trust.changes(venueID: venueID)
        guard !rows.isEmpty else { return nil }
        let rejudgement = try await trust.rejudge(venueID: venueID)
        return VenueChangesSection(rows: rows, rejudgement: rejudgement, csrf: csrf)
    }
}
