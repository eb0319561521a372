import Foundation
import HTTPTypes
import HearClearEngine
import HearClearHTTP
import HearClearModel
import Hummingbird
import Mustache

/// The templates and the style sheet of `Pages/`, loaded once at start, and the responses made
/// of them: each with a strong ETag over its bytes (a matching `If-None-Match` is 304); the
/// server's compression middleware gzips them. Values reach a page only through `{{ }}`, which
/// escapes them; the SVG of a week is built by ``WeekChart``, which escapes its own text.
struct PagesRenderer: Sendable {
    let library: MustacheLibrary
    let styleSheet: Asset
    let script: Asset
    /// `/measure`'s script and the AudioWorklet module it loads (docs/ARCHITECTURE.md, "Measure here").
    let measureScript: Asset
    let meterWorklet: Asset
    /// Sent with every page: ``securityHeaders(map:)`` of the configured map.
    let headers: HTTPFields

    static let requiredTemplates = ["layout", "home", "venue", "report", "error", "measure"]

    init(directory: String, map: PageMap? = nil) throws {
        let folder = TemplateFolder(directory, what: "page")
        library = try folder.templates(required: Self.requiredTemplates)
        styleSheet = Asset(try folder.file("pages.css", kind: "style sheet"), contentType: "text/css; charset=utf-8")
        script = Asset(try folder.file("pages.js", kind: "script"), contentType: "text/javascript; charset=utf-8")
        measureScript = Asset(
            try folder.file("measure.js", kind: "script"), contentType: "text/javascript; charset=utf-8")
        meterWorklet = Asset(
            try folder.file("meter-worklet.js", kind: "script"), contentType: "text/javascript; charset=utf-8")
        headers = Self.securityHeaders(map: map)
    }

    /// The page `template` rendered with `object`.
    func page(
        _ template: String, _ object: Any, status: HTTPResponse.Status = .ok, to request: Request, cacheControl: String
    ) -> Response {
        let html = library.render(object, withTemplate: template) ?? ""
        return page(Array(html.utf8), status: status, to: request, cacheControl: cacheControl)
    }

    /// A page already written (``Frame``).
    func page(_ html: [UInt8], status: HTTPResponse.Status = .ok, to request: Request, cacheControl: String)
        -> Response
    {
        Self.respond(
            html, contentType: "text/html; charset=utf-8", status: status, to: request, cacheControl: cacheControl,
            headers: headers)
    }

    /// A template rendered once around content that Swift writes (``HomeContent``): the bytes
    /// before and after the content.
    struct Frame: Sendable {
        let before: [UInt8]
        let after: [UInt8]
    }

    /// `template` rendered with `object(marker)`, cut where the marker is (placed unescaped once,
    /// where the content goes); a template that does not place it (a changed `--resources`) is
    /// refused at start.
    func frame(_ template: String, _ object: (String) -> Any) throws -> Frame {
        let marker = "\u{1}content\u{1}"
        let html = library.render(object(marker), withTemplate: template) ?? ""
        guard let range = html.range(of: marker) else {
            throw ConfigurationError.invalid(
                "page template \(template).mustache does not place its content with {{{page}}}")
        }
        return Frame(before: Array(html[..<range.lowerBound].utf8), after: Array(html[range.upperBound...].utf8))
    }

    /// The page `template` rendered with `object`, for the ``PageCache`` to keep.
    func made(_ template: String, _ object: Any, keepFor: Duration?) -> MadePage {
        let html = library.render(object, withTemplate: template) ?? ""
        return made(Array(html.utf8), keepFor: keepFor)
    }

    /// A page already written (``Frame``), for the ``PageCache`` to keep.
    func made(_ html: [UInt8], keepFor: Duration?) -> MadePage {
        .keep(body: html, contentType: "text/html; charset=utf-8", headers: headers, keepFor: keepFor)
    }

    /// `bytes` with its ETag and `Cache-Control`, or 304 when `If-None-Match` names it.
    static func respond(
        _ bytes: [UInt8], contentType: String, status: HTTPResponse.Status = .ok, to request: Request,
        cacheControl: String, headers: HTTPFields = securityHeaders(map: nil)
    ) -> Response {
        guard status == .ok else {
            var headers = headers
            headers[.contentType] = contentType
            headers[.cacheControl] = "no-store"
            return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: bytes)))
        }
        return respond(
            ByteBuffer(bytes: bytes), eTag: EntityTag.strong(for: bytes), contentType: contentType, to: request,
            cacheControl: cacheControl, headers: headers)
    }

    /// A body whose tag is known, or 304 when `If-None-Match` names it (the compression
    /// middleware gzips the body and names its tag `…-gzip`, which a 304 then repeats).
    static func respond(
        _ body: ByteBuffer, eTag tag: String, contentType: String, to request: Request, cacheControl: String,
        headers: HTTPFields
    ) -> Response {
        var headers = headers
        headers[.cacheControl] = cacheControl
        headers[.eTag] = tag
        if let presented = EntityTag.match(tag, ifNoneMatch: request.headers[.ifNoneMatch]) {
            headers[.eTag] = presented.contains("-gzip") ? EntityTag.gzipped(tag) : tag
            return Response(status: .notModified, headers: headers)
        }
        headers[.contentType] = contentType
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: body))
    }

    func styleSheetResponse(to request: Request) -> Response { asset(styleSheet, to: request) }

    func scriptResponse(to request: Request) -> Response { asset(script, to: request) }

    /// A file that changes only with a new release: an hour's `max-age`, revalidated by its ETag.
    func asset(_ asset: Asset, to request: Request) -> Response {
        Self.respond(
            asset.bytes, eTag: asset.eTag, contentType: asset.contentType, to: request,
            cacheControl: "public, max-age=3600", headers: headers)
    }

    /// No framing; scripts (and `/measure`'s AudioWorklet module), styles, images, forms and
    /// requests (`/measure` calls the API) from here only (with a map, its tiles from the tile
    /// server too); no referrer sent elsewhere (no tracking, and nothing from elsewhere to track
    /// with); the microphone and location only for this origin.
    static func securityHeaders(map: PageMap?) -> HTTPFields {
        let images = map.map { "'self' \($0.origin)" } ?? "'self'"
        return [
            .contentSecurityPolicy:
                "default-src 'none'; script-src 'self'; style-src 'self'; img-src \(images); connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
            HTTPField.Name("X-Content-Type-Options")!: "nosniff",
            HTTPField.Name("Referrer-Policy")!: "same-origin",
            HTTPField.Name("Permissions-Policy")!: "microphone=(self), geolocation=(self), camera=()",
        ]
    }
}

/// A file served as it was read at start (the style sheet, the script, Leaflet's), with its tag
/// computed then, not at each request.
struct Asset: Sendable {
    let bytes: ByteBuffer
    let contentType: String
    let eTag: String

    init(_ bytes: ByteBuffer, contentType: String) {
        self.bytes = bytes
        self.contentType = contentType
        eTag = EntityTag.strong(for: bytes.readableBytesView)
    }
}
