import Crypto
import Foundation
import HTTPTypes
import HearClearEngine
import HearClearHTTP
import Hummingbird
import Mustache

/// The templates and the style sheet of `Pages/`, loaded once at start, and the responses made
/// of them: each with a strong ETag over its bytes (a matching `If-None-Match` is 304); the
/// server's compression middleware gzips them. Values reach a page only through `{{ }}`, which
/// escapes them; the SVG of a week is built by ``WeekChart``, which escapes its own text.
struct PagesRenderer: Sendable {
    let library: MustacheLibrary
    let styleSheet: ByteBuffer
    let script: ByteBuffer
    /// Sent with every page: ``securityHeaders(map:)`` of the configured map.
    let headers: HTTPFields

    static let requiredTemplates = ["layout", "home", "venue", "report", "error"]

    init(directory: String, map: PageMap? = nil) throws {
        let folder = TemplateFolder(directory, what: "page")
        library = try folder.templates(required: Self.requiredTemplates)
        styleSheet = try folder.file("pages.css", kind: "style sheet")
        script = try folder.file("pages.js", kind: "script")
        headers = Self.securityHeaders(map: map)
    }

    /// The page `template` rendered with `object`.
    func page(
        _ template: String, _ object: Any, status: HTTPResponse.Status = .ok, to request: Request, cacheControl: String
    ) -> Response {
        let html = library.render(object, withTemplate: template) ?? ""
        return Self.respond(
            Array(html.utf8), contentType: "text/html; charset=utf-8", status: status, to: request,
            cacheControl: cacheControl, headers: headers)
    }

    /// The page `template` rendered with `object`, for the ``PageCache`` to keep.
    func made(_ template: String, _ object: Any, keepFor: Duration?) -> MadePage {
        let html = library.render(object, withTemplate: template) ?? ""
        return .keep(
            body: Array(html.utf8), contentType: "text/html; charset=utf-8", headers: headers, keepFor: keepFor)
    }

    /// `bytes` with its ETag and `Cache-Control`, or 304 when `If-None-Match` names it.
    static func respond(
        _ bytes: [UInt8], contentType: String, status: HTTPResponse.Status = .ok, to request: Request,
        cacheControl: String, headers: HTTPFields = securityHeaders(map: nil)
    ) -> Response {
        var headers = headers
        headers[.cacheControl] = cacheControl
        guard status == .ok else {
            headers[.contentType] = contentType
            headers[.cacheControl] = "no-store"
            return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: bytes)))
        }
        let tag = entityTag(bytes)
        headers[.eTag] = tag
        if let presented = request.headers[.ifNoneMatch], matches(tag, presented) {
            headers[.eTag] = presented.contains("-gzip") ? String(tag.dropLast()) + "-gzip\"" : tag
            return Response(status: .notModified, headers: headers)
        }
        headers[.contentType] = contentType
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: bytes)))
    }

    /// `"<first 32 hex digits of SHA-256>"`, as the API's tags.
    static func entityTag(_ bytes: [UInt8]) -> String {
        "\"" + SHA256.hash(data: bytes).prefix(16).map { String(format: "%02x", $0) }.joined() + "\""
    }

    /// Weak comparison of `If-None-Match` (a `-gzip` suffix, the compressed form's, ignored).
    static func matches(_ tag: String, _ header: String) -> Bool {
        header.split(separator: ",").contains { candidate in
            var value = candidate.trimmingCharacters(in: .whitespaces)
            if value == "*" { return true }
            if value.hasPrefix("W/") { value.removeFirst(2) }
            if value.hasSuffix("-gzip\"") { value = String(value.dropLast(6)) + "\"" }
            return value == tag
        }
    }

    func styleSheetResponse(to request: Request) -> Response {
        asset(styleSheet, contentType: "text/css; charset=utf-8", to: request)
    }

    func scriptResponse(to request: Request) -> Response {
        asset(script, contentType: "text/javascript; charset=utf-8", to: request)
    }

    /// A file that changes only with a new release: an hour's `max-age`, revalidated by its ETag.
    func asset(_ bytes: ByteBuffer, contentType: String, to request: Request) -> Response {
        Self.respond(
            Array(bytes.readableBytesView), contentType: contentType, to: request,
            cacheControl: "public, max-age=3600", headers: headers)
    }

    /// No framing; scripts, styles, images and forms from here only (with a map, its tiles from
    /// the tile server too); no referrer sent elsewhere (no tracking, and nothing from elsewhere
    /// to track with).
    static func securityHeaders(map: PageMap?) -> HTTPFields {
        let images = map.map { "'self' \($0.origin)" } ?? "'self'"
        return [
            .contentSecurityPolicy:
                "default-src 'none'; script-src 'self'; style-src 'self'; img-src \(images); form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
            HTTPField.Name("X-Content-Type-Options")!: "nosniff",
            HTTPField.Name("Referrer-Policy")!: "same-origin",
        ]
    }
}
