import Foundation
import HearClearEngine
import HearClearModel
import Hummingbird
import LoudnessCore

/// `/farmer/dashboard`: what arrived lately, totals, judgements and the aggregation queue, and
/// the cells that reports dispute.
struct AdminDashboard: AdminPageRoutes {
    /// Disputed cells listed (the most recently reported first).
    static let disputedCellsShown = 10

    let overview: AdminOverviewReads
    let reports: AdminReportReads
    let loudness: LoudnessReads
    let audit: AdminAudit
    let renderer: AdminRenderer
    let totalsCache: AdminTotalsCache

    func addRoutes(to group: RouterGroup<AdminRequestContext>) {
        group.get("dashboard") { _, context in try await page(context) }
    }

    private func page(_ context: AdminRequestContext) async throws -> Response {
        let session = try context.requireSession()
        async let totals = totalsCache.totals { try await overview.totals() }
        async let queue = overview.queue()
        async let venues = overview.recentVenues(limit: 5)
        async let devices = overview.recentDevices(limit: 5)
        async let checkins = overview.recentCheckins(limit: 5)
        async let actions = audit.recent(limit: 5)
        async let openReports = reports.openCount()
        async let disputed = reports.disputedCells(
            minimumDevices: ReportReview.minimumDevices, limit: Self.disputedCellsShown + 1)
        let bands = try await loudness.currentBands()
        let page = try await DashboardPage(
            chrome: AdminChrome(session, section: .dashboard), totals: totals, queue: queue, venues: venues,
            devices: devices, checkins: checkins, actions: actions,
            reports: DashboardPage.Reports(
                open: openReports, disputed: disputed, shown: Self.disputedCellsShown, bands: bands,
                referenceOffsetDB: loudness.referenceOffsetDB)
        )
        return renderer.page("dashboard", page)
    }
}
