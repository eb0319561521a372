import Foundation
import HearClearEngine
import HearClearModel
import Hummingbird

/// `/farmer/venues` and `/farmer/venues/{venueId}`.
struct AdminVenues: AdminPageRoutes {
    static let pageSize = 25
    static let checkinPageSize = 50

    let venues: AdminVenueReads
    let directory: VenueDirectory
    let details: AdminVenueDetails
    let renderer: AdminRenderer

    func addRoutes(to group: RouterGroup<AdminRequestContext>) {
        group.get("venues") { request, context in try await list(request, context: context) }
        group.get("venues/:venueId") { request, context in try await venue(request, context: context) }
    }

    private func list(_ request: Request, context: AdminRequestContext) async throws -> Response {
        let session = try context.requireSession()
        let search = request.uri.queryParameters["q"].map {
            String($0.prefix(100)).trimmingCharacters(in: .whitespaces)
        }
        .flatMap { $0.isEmpty ? nil : $0 }
        let paging = AdminPaging(request, size: Self.pageSize)
        let rows = try await venues.list(search: search, limit: paging.limit, offset: paging.offset)
        let base = "/farmer/venues" + (search.map { "?q=" + AdminFormat.queryValue($0) } ?? "")
        let shown = paging.cut(rows, base: base)
        let page = VenueListPage(
            chrome: AdminChrome(session, section: .venues), search: search, page: paging.page, rows: shown.rows,
            previous: shown.previous, next: shown.next
        )
        return renderer.page("venues", page)
    }

    private func venue(_ request: Request, context: AdminRequestContext) async throws -> Response {
        let session = try context.requireSession()
        let externalID = try context.parameters.require("venueId")
        guard let venue = try await directory.find(externalID: externalID) else {
            throw HTTPError(.notFound, message: "No venue has the id \(externalID).")
        }
        let paging = AdminPaging(request, size: Self.checkinPageSize)
        let page = try await details.page(
            venue: venue, chrome: AdminChrome(session, section: .venues), paging: paging,
            notice: request.uri.queryParameters["done"].flatMap {
                ReportsPage.notice(for: String($0)) ?? VenueChangeView.notice(for: String($0))
            }
        )
        return renderer.page("venue", page)
    }
}
