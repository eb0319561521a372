import Foundation
import HearClearEngine
import HearClearModel
import Hummingbird
import LoudnessCore

/// `/farmer/reports`: reports of wrong data, newest first, each beside the level the server
/// showed for its cell then and the level now; resolving (acted on) or dismissing one, audited.
struct AdminReports: AdminPageRoutes {
    static let pageSize = 50
    /// The longest note kept with a resolution.
    static let noteLength = 200

    let reports: AdminReportReads
    let desk: VenueReports
    let loudness: LoudnessReads
    let audit: AdminAudit
    let renderer: AdminRenderer

    func addRoutes(to group: RouterGroup<AdminRequestContext>) {
        group.get("reports") { request, context in try await list(request, context: context) }
        group.post("reports/:id/resolve") { _, context in try await close(as: .resolved, context: context) }
        group.post("reports/:id/dismiss") { _, context in try await close(as: .dismissed, context: context) }
    }

    private func list(_ request: Request, context: AdminRequestContext) async throws -> Response {
        let session = try context.requireSession()
        // Open reports unless asked otherwise: they are the admin's work.
        let asked = request.uri.queryParameters["status"].map(String.init) ?? ReportStatus.open.rawValue
        let status = asked == "all" ? nil : ReportStatus(rawValue: asked) ?? .open
        let paging = AdminPaging(request, size: Self.pageSize)
        async let rows = reports.list(status: status, limit: paging.limit, offset: paging.offset)
        let bands = try await loudness.currentBands()
        let base = "/farmer/reports?status=\(status?.rawValue ?? "all")"
        let shown = paging.cut(try await rows, base: base)
        let back = paging.page > 1 ? base + "&page=\(paging.page)" : base
        let page = ReportsPage(
            chrome: AdminChrome(session, section: .reports), status: status,
            reports: shown.rows.map {
                AdminReportView($0, bands: bands, referenceOffsetDB: loudness.referenceOffsetDB, back: back)
            },
            page: paging.page, previous: shown.previous, next: shown.next,
            notice: request.uri.queryParameters["done"].flatMap { ReportsPage.notice(for: String($0)) })
        return renderer.page("reports", page)
    }

    private func close(as status: ReportStatus, context: AdminRequestContext) async throws -> Response {
        let session = try context.requireSession()
        guard let id = UUID(uuidString: try context.parameters.require("id")) else {
            throw HTTPError(.notFound, message: "There is no such report.")
        }
        let note = context.form["note"].map { String($0.prefix(Self.noteLength)) }
            .map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }.flatMap { $0.isEmpty ? nil : $0 }
        let back = context.form["back"].flatMap { AdminLoginPage.isSafeReturnPath($0) ? $0 : nil } ?? "/farmer/reports"
        func done(_ code: String) -> Response {
            AdminRenderer.redirect(to: back + (back.contains("?") ? "&" : "?") + "done=\(code)")
        }
        switch try await desk.close(id: id, as: status, by: session.username, note: note) {
        case .notFound:
            throw HTTPError(.notFound, message: "There is no such report.")
        case .alreadyClosed:
            return done("unchanged")
        case .closed(let report):
            let about =
                "venue \(report.venueExternalID), \(AdminReportView.cellName(report.position)), felt \(report.felt.rawValue)"
            try await audit.record(
                username: session.username, action: "report \(status.rawValue)",
                subject: "report \(report.id.uuidString.lowercased())",
                detail: [about, note].compactMap { $0 }.joined(separator: "; "))
            return done(status.rawValue)
        }
    }
}
