import Foundation
import HearClearStore
import Hummingbird

/// `/farmer/dashboard`: what arrived lately, totals, judgements and the aggregation queue.
struct AdminDashboard: AdminPageRoutes {
    let overview: AdminOverviewRepository
    let audit: AdminAuditLog
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
        let page = try await DashboardPage(
            chrome: AdminChrome(session, section: .dashboard), totals: totals, queue: queue, venues: venues,
            devices: devices, checkins: checkins, actions: actions
        )
        return renderer.page("dashboard", page)
    }
}
