import Foundation
import HearClearEngine
import HearClearModel
import Hummingbird

/// `/farmer/changes` and `/farmer/campaigns`: venues' lasting changes of level and coordinated
/// campaigns, and the admin's decisions on them: dismissing a change, excluding a campaign's
/// devices or dismissing it. Each decision is recorded in the audit log and queues the venues it
/// concerns, so their judgement follows within seconds.
struct AdminTrust: AdminPageRoutes {
    static let pageSize = 50

    let trust: AdminTrustReads
    let directory: VenueDirectory
    let audit: AdminAudit
    let renderer: AdminRenderer

    func addRoutes(to group: RouterGroup<AdminRequestContext>) {
        group.get("changes") { request, context in try await changes(request, context: context) }
        group.post("venues/:venueId/changes/:key/dismiss") { _, context in try await dismissChange(context) }
        group.get("campaigns") { request, context in try await campaigns(request, context: context) }
        group.post("campaigns/:id/exclude") { _, context in try await decide(exclude: true, context: context) }
        group.post("campaigns/:id/dismiss") { _, context in try await decide(exclude: false, context: context) }
    }

    private func changes(_ request: Request, context: AdminRequestContext) async throws -> Response {
        let session = try context.requireSession()
        let paging = AdminPaging(request, size: Self.pageSize)
        let rows = try await trust.recentChanges(limit: paging.limit, offset: paging.offset)
        let shown = paging.cut(rows, base: "/farmer/changes")
        let page = ChangesPage(
            chrome: AdminChrome(session, section: .changes), rows: shown.rows, page: paging.page,
            previous: shown.previous, next: shown.next)
        return renderer.page("changes", page)
    }

    private func dismissChange(_ context: AdminRequestContext) async throws -> Response {
        let session = try context.requireSession()
        let externalID = try context.parameters.require("venueId")
        guard let key = Int64(try context.parameters.require("key")),
            let venue = try await directory.find(externalID: externalID)
        else { throw HTTPError(.notFound, message: "There is no such venue change.") }
        let link = "/farmer/venues/\(venue.externalID)"
        guard let row = try await trust.changes(venueID: venue.id).first(where: { $0.key == key }) else {
            throw HTTPError(.notFound, message: "There is no such venue change.")
        }
        guard try await trust.dismissChange(venueID: venue.id, key: key, username: session.username) else {
            return AdminRenderer.redirect(to: link + "?done=change-unchanged")
        }
        try await audit.record(
            username: session.username, action: "venue change dismissed", subject: venue.externalID,
            detail: "changed at \(AdminFormat.time(row.change.changedAt)), shift "
                + AdminFormat.signed(row.change.shiftDB) + " dB; venue queued")
        return AdminRenderer.redirect(to: link + "?done=change-dismissed")
    }

    private func campaigns(_ request: Request, context: AdminRequestContext) async throws -> Response {
        let session = try context.requireSession()
        let paging = AdminPaging(request, size: Self.pageSize)
        let rows = try await trust.campaigns(limit: paging.limit, offset: paging.offset)
        let shown = paging.cut(rows, base: "/farmer/campaigns")
        let page = CampaignsPage(
            chrome: AdminChrome(session, section: .campaigns), rows: shown.rows, page: paging.page,
            previous: shown.previous, next: shown.next,
            notice: request.uri.queryParameters["done"].flatMap { CampaignsPage.notice(for: String($0)) })
        return renderer.page("campaigns", page)
    }

    private func decide(exclude: Bool, context: AdminRequestContext) async throws -> Response {
        let session = try context.requireSession()
        guard let id = Int64(try context.parameters.require("id")) else {
            throw HTTPError(.notFound, message: "There is no such campaign.")
        }
        switch try await trust.decideCampaign(id: id, exclude: exclude, username: session.username) {
        case .notFound:
            throw HTTPError(.notFound, message: "There is no such campaign.")
        case .notOpen:
            return AdminRenderer.redirect(to: "/farmer/campaigns?done=unchanged")
        case .decided(_, let devices, let venues):
            try await audit.record(
                username: session.username, action: exclude ? "campaign excluded" : "campaign dismissed",
                subject: "campaign \(id)",
                detail: (exclude ? "\(ModelsPage.plural(devices, "device")) excluded; " : "")
                    + "\(ModelsPage.plural(venues, "venue")) queued")
            return AdminRenderer.redirect(to: "/farmer/campaigns?done=\(exclude ? "excluded" : "dismissed")")
        }
    }
}
