import Foundation
import HearClearEngine
import HearClearModel
import Hummingbird

/// `/farmer/devices`: every device with its bias against the crowd, and excluding or including
/// one through the engine (which queues its venues, so their cells follow).
struct AdminDevices: AdminPageRoutes {
    static let pageSize = 50

    let devices: AdminDeviceReads
    let directory: DeviceDirectory
    let trust: AdminTrustReads
    let audit: AdminAudit
    let renderer: AdminRenderer

    func addRoutes(to group: RouterGroup<AdminRequestContext>) {
        group.get("devices") { request, context in try await list(request, context: context) }
        group.post("devices/:key/exclude") { _, context in try await setExcluded(true, context: context) }
        group.post("devices/:key/include") { _, context in try await setExcluded(false, context: context) }
    }

    private func list(_ request: Request, context: AdminRequestContext) async throws -> Response {
        let session = try context.requireSession()
        let excludedOnly = request.uri.queryParameters["excluded"] != nil
        let paging = AdminPaging(request, size: Self.pageSize)
        let rows = try await devices.list(excludedOnly: excludedOnly, limit: paging.limit, offset: paging.offset)
        let shown = paging.cut(rows, base: excludedOnly ? "/farmer/devices?excluded=1" : "/farmer/devices")
        let trusts = try await trust.trust(deviceKeys: shown.rows.map(\.summary.key))
        let notice = request.uri.queryParameters["done"].flatMap { DevicesPage.notice(for: String($0)) }
        let page = DevicesPage(
            chrome: AdminChrome(session, section: .devices), rows: shown.rows, trust: trusts,
            excludedOnly: excludedOnly,
            page: paging.page, previous: shown.previous, next: shown.next, notice: notice
        )
        return renderer.page("devices", page)
    }

    private func setExcluded(_ excluded: Bool, context: AdminRequestContext) async throws -> Response {
        let session = try context.requireSession()
        guard let key = Int64(try context.parameters.require("key")) else {
            throw HTTPError(.notFound, message: "There is no such device.")
        }
        let note = context.form["note"].map { String($0.prefix(200)) }.flatMap { $0.isEmpty ? nil : $0 }
        switch try await directory.setExcluded(String(key), excluded: excluded, note: note) {
        case .notFound:
            throw HTTPError(.notFound, message: "There is no such device.")
        case .unchanged:
            return AdminRenderer.redirect(to: "/farmer/devices?done=unchanged")
        case .changed(_, let venues):
            try await audit.record(
                username: session.username, action: excluded ? "device excluded" : "device included",
                subject: "device \(key)",
                detail: [note, "\(venues) venues queued"].compactMap { $0 }.joined(separator: "; ")
            )
            return AdminRenderer.redirect(to: "/farmer/devices?done=\(excluded ? "excluded" : "included")")
        }
    }
}
