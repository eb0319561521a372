import Foundation
import HTTPTypes
import HearClearEngine
import HearClearHTTP
import Hummingbird
import Mustache

/// The `/farmer` templates and style sheet, loaded once at start from `Admin/`, and the HTML
/// responses made from them. Values reach the page only through `{{ }}`, which escapes them.
struct AdminRenderer: Sendable {
    let library: MustacheLibrary
    let styleSheet: ByteBuffer

    /// Loads every `*.mustache` of `directory` (named by file name) and `farmer.css`.
    init(directory: String) throws {
        let folder = TemplateFolder(directory, what: "admin")
        library = try folder.templates(required: Self.requiredTemplates)
        styleSheet = try folder.file("farmer.css", kind: "style sheet")
    }

    static let requiredTemplates = [
        "layout", "login", "dashboard", "venues", "venue", "checkin", "devices", "models", "bands", "error", "reports",
        "report-table", "changes", "campaigns", "venue-changes",
    ]

    /// The page `template` rendered with `object`.
    func page(_ template: String, _ object: Any, status: HTTPResponse.Status = .ok) -> Response {
        let html = library.render(object, withTemplate: template) ?? ""
        var headers = Self.securityHeaders
        headers[.contentType] = "text/html; charset=utf-8"
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(string: html)))
    }

    /// `303 See Other` to `location` (after a POST, or to the login form).
    static func redirect(to location: String) -> Response {
        var headers = securityHeaders
        headers[.location] = location
        return Response(status: .seeOther, headers: headers)
    }

    func styleSheetResponse() -> Response {
        Response(
            status: .ok,
            headers: [.contentType: "text/css; charset=utf-8", .cacheControl: "public, max-age=3600"],
            body: .init(byteBuffer: styleSheet)
        )
    }

    /// No caching of admin pages, no framing, no scripts; styles and images from here only.
    static let securityHeaders: HTTPFields = [
        .cacheControl: "no-store",
        .contentSecurityPolicy:
            "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
        HTTPField.Name("X-Content-Type-Options")!: "nosniff",
        HTTPField.Name("Referrer-Policy")!: "same-origin",
        HTTPField.Name("X-Frame-Options")!: "DENY",
    ]
}
