import HTTPTypes
import HearClearEngine
import HearClearHTTP
import Hummingbird

/// The pages for people at `/` (docs/ARCHITECTURE.md, "Pages for people"): "Find a quiet place",
/// a venue's page with its week, the week as SVG, and the "this was wrong" form. Server-rendered
/// HTML from `Pages/`, no JavaScript, no resources from elsewhere. Reads go through the engine as
/// the API's do; a report goes through `reports`, which the server gives the API's validation and
/// rate limits.
public struct Pages: Sendable {
    let controller: PagesController

    /// Loads the templates and the style sheet of `directory` now, so that a mistake stops the start.
    /// `cacheControl` is what the API's read answers carry.
    public init(directory: String, engine: Engine, reports: any PageReportDesk, cacheControl: String) throws {
        controller = PagesController(
            renderer: try PagesRenderer(directory: directory), finder: engine.finder, loudness: engine.loudness,
            reports: reports, cacheControl: cacheControl)
    }

    /// Mounts `/`, `/pages.css`, `/venues/{venueId}`, `/venues/{venueId}/week.svg` and
    /// `POST /venues/{venueId}/report`.
    public func addRoutes(to router: Router<AppRequestContext>) {
        controller.addRoutes(to: router)
    }
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
        var fields = PagesRenderer.securityHeaders
        for field in headers { fields[field.name] = field.value }
        fields[.contentType] = "text/html; charset=utf-8"
        fields[.cacheControl] = "no-store"
        return Response(status: status, headers: fields, body: .init(byteBuffer: ByteBuffer(string: html)))
    }
}
