import HTTPTypes
import HearClearEngine
import HearClearHTTP
import Hummingbird
import LoudnessCore

/// The pages for people at `/` (docs/ARCHITECTURE.md, "Pages for people"): "Find a quiet place",
/// a venue's page with its week, the week as SVG, and the "this was wrong" form. Server-rendered
/// HTML from `Pages/` that works without JavaScript (`pages.js` adds "Near me" and the optional
/// map), nothing from elsewhere but a map's tiles. Reads go through the engine as
/// the API's do; a report goes through `reports`, which the server gives the API's validation and
/// rate limits.
public struct Pages: Sendable {
    let controller: PagesController

    /// Loads the templates and the style sheet of `directory` now, so that a mistake stops the start.
    /// `cache` holds pages and the bands as the read cache holds the API's answers;
    /// `maxAgeSeconds` and `staleWhileRevalidateSeconds` make the pages' `Cache-Control`, and
    /// `maxAgeSeconds` is also how long a venue's page is kept although its alternatives nearby
    /// and its "now" may have changed.
    public init(
        directory: String, engine: Engine, reports: any PageReportDesk, cache: any PageCache, maxAgeSeconds: Int,
        staleWhileRevalidateSeconds: Int, map: PageMap? = nil
    ) throws {
        let cacheControl = "public, max-age=\(maxAgeSeconds), stale-while-revalidate=\(staleWhileRevalidateSeconds)"
        let renderer = try PagesRenderer(directory: directory, map: map)
        controller = PagesController(
            renderer: renderer, finder: engine.finder,
            loudness: engine.loudness, reports: reports, cache: cache, cacheControl: cacheControl,
            venuePageLifetime: .seconds(maxAgeSeconds), map: map,
            leaflet: try map.map { try LeafletFiles(directory: $0.leafletDirectory) },
            homeFrame: try PagesController.homeFrame(renderer, map: map))
    }

    /// Mounts `/`, `/pages.css`, `/pages.js`, `/venues/{venueId}`, `/venues/{venueId}/week.svg`,
    /// `POST /venues/{venueId}/report`, and with a map Leaflet's files under `/leaflet/`.
    public func addRoutes(to router: Router<AppRequestContext>) {
        controller.addRoutes(to: router)
    }
}

/// A page the ``PageCache`` holds.
public enum PageKey: Hashable, Sendable {
    /// `/` without a search: changes only with the bands.
    case home
    /// `/venues/{venueId}`: changes with the venue, and also with its alternatives nearby and the
    /// hour now, which no notification names; kept only as long as `Cache-Control` lets any cache.
    case venue(externalID: String)
    /// `/venues/{venueId}/week.svg`: changes with the venue (and the bands).
    case weekSVG(externalID: String)
}

/// A page made on a miss of the ``PageCache``.
public enum MadePage: Sendable {
    /// To keep and send: the body, its content type and the headers beside them; kept until what
    /// it shows changes, and at most `keepFor` when given.
    case keep(body: [UInt8], contentType: String, headers: HTTPFields, keepFor: Duration?)
    /// To send as it is and not keep (a venue not found).
    case send(Response)
}

/// Holds the pages and the bands in this instance's memory, kept true by the same notifications
/// as the API's read cache: the server's read cache, which also gzips and tags each page once.
public protocol PageCache: Sendable {
    /// The bands in force (from memory while no band change has been heard).
    func currentBands() async throws -> Bands
    /// The page for `key` from memory, or `make`'s, kept when it is to be kept; ETag, 304 and gzip
    /// as the API's answers, with `cacheControl`.
    func respond(
        _ key: PageKey, cacheControl: String, to request: Request, make: () async throws -> MadePage
    ) async throws -> Response
}

/// A report from the "this was wrong" form, as the form sent it (every field as text).
public struct PageReportForm: Sendable, Equatable {
    public var venueExternalID: String
    public var felt: String?
    public var comment: String?

    public init(venueExternalID: String, felt: String?, comment: String?) {
        self.venueExternalID = venueExternalID
        self.felt = felt
        self.comment = comment
    }
}

/// What became of a report from the form.
public enum PageReportResult: Sendable, Equatable {
    /// Stored (or the same report was already stored).
    case received
    /// Refused: one message per field (`felt`, `comment`) or for the whole form (`""`).
    case invalid([String: String])
    /// Too many reports from here; try again later.
    case tooMany(String)
    case unknownVenue
}

/// Takes reports from the pages' form: the server's, with the API's validation and rate limits.
public protocol PageReportDesk: Sendable {
    func submit(_ form: PageReportForm, context: AppRequestContext) async throws -> PageReportResult
}

extension Pages {
    /// A refusal for people: a small HTML page (the pages' style sheet, the message, a way back)
    /// for what the server refuses before a page's route runs, e.g. past the per-address limit.
    public static func refusal(status: HTTPResponse.Status, title: String, message: String, headers: HTTPFields = [:])
        -> Response
    {
        // A sentence: the API's details start in lower case and end without a full stop.
        var message = message.prefix(1).uppercased() + message.dropFirst()
        if !message.hasSuffix(".") { message += "." }
        let html = """
            <!doctype html>
            <html lang="en">
            <head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
            <title>\(PlainWords.escaped(title)) · HearClear</title><link rel="stylesheet" href="/pages.css"></head>
            <body><main id="main"><h1>\(PlainWords.escaped(title))</h1><p>\(PlainWords.escaped(message))</p>
            <p><a href="/">Find a quiet place</a></p></main></body>
            </html>
            """
        var fields = PagesRenderer.securityHeaders(map: nil)
        for field in headers { fields[field.name] = field.value }
        fields[.contentType] = "text/html; charset=utf-8"
        fields[.cacheControl] = "no-store"
        return Response(status: status, headers: fields, body: .init(byteBuffer: ByteBuffer(string: html)))
    }
}
