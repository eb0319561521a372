import Foundation
import HearClearEngine
import HearClearModel
import Hummingbird
import LoudnessCore

/// `/farmer/bands`: the bands in force, an editor, a preview of how many cells would change
/// label, and saving (which applies at once: every reader labels with the current bands).
struct AdminBands: AdminPageRoutes {
    let bands: BandSettings
    let audit: AdminAudit
    let renderer: AdminRenderer
    let referenceOffsetDB: Double

    func addRoutes(to group: RouterGroup<AdminRequestContext>) {
        group.get("bands") { request, context in
            let saved = request.uri.queryParameters["saved"] != nil
            return try await page(context, form: nil, notice: saved ? "Bands saved. They apply now." : nil)
        }
        group.post("bands/preview") { _, context in try await preview(context) }
        group.post("bands") { _, context in try await save(context) }
    }

    private func page(
        _ context: AdminRequestContext, form: BandsForm?, preview: BandsPage.Preview? = nil, problems: [String] = [],
        notice: String? = nil, status: HTTPResponse.Status = .ok, current known: [StoredBand]? = nil
    ) async throws -> Response {
        let session = try context.requireSession()
        let current: [StoredBand]
        if let known { current = known } else { current = try await bands.current() }
        let page = BandsPage(
            chrome: AdminChrome(session, section: .bands), current: current, form: form ?? BandsForm(bands: current),
            preview: preview, problems: problems, notice: notice
        )
        return renderer.page("bands", page, status: status)
    }

    private func preview(_ context: AdminRequestContext) async throws -> Response {
        let form = BandsForm(context.form)
        switch form.validated() {
        case .failure(let error):
            return try await page(context, form: form, problems: error.problems, status: .unprocessableContent)
        case .success(let proposed):
            let current = try await bands.current()
            let change = BandChangePreview(
                levels: try await bands.cellLevelCounts(), from: Self.bands(current), to: Self.bands(proposed),
                referenceOffsetDB: referenceOffsetDB)
            return try await page(context, form: form, preview: BandsPage.Preview(change), current: current)
        }
    }

    private func save(_ context: AdminRequestContext) async throws -> Response {
        let session = try context.requireSession()
        let form = BandsForm(context.form)
        switch form.validated() {
        case .failure(let error):
            return try await page(context, form: form, problems: error.problems, status: .unprocessableContent)
        case .success(let proposed):
            try await bands.replace(with: proposed)
            try await audit.record(
                username: session.username, action: "bands saved", detail: BandsPage.describe(proposed)
            )
            return AdminRenderer.redirect(to: "/farmer/bands?saved=1")
        }
    }

    /// Stored bands as the readers apply them: the defaults if the stored set is invalid (as
    /// ``LoudnessReads/currentBands()``).
    static func bands(_ stored: [StoredBand]) -> Bands {
        (try? LoudnessReads.bands(stored)) ?? .standard
    }
}
