import Foundation
import HearClearEngine
import HearClearHTTP
import HearClearModel
import Hummingbird
import LoudnessCore

/// The routes of the pages and what each one shows.
struct PagesController: Sendable {
    let renderer: PagesRenderer
    let finder: VenueFinder
    let loudness: LoudnessReads
    let reports: any PageReportDesk
    let cache: any PageCache
    let cacheControl: String
    /// How long a venue's page is kept: its alternatives nearby and the hour now change with no
    /// notification naming the venue, so it is kept only as long as `Cache-Control` lets any cache.
    let venuePageLifetime: Duration
    /// The map of the results, and Leaflet's files, when a tile server is set.
    let map: PageMap?
    let leaflet: LeafletFiles?
    /// ``homeFrame(_:map:)``.
    let homeFrame: PagesRenderer.Frame

    /// Results shown, and the venues read to find them when the form filters by level or
    /// conversation (those filters apply after); without them, the first `shown` are the page.
    static let shown = 20
    static let read = 60
    static let radiusMetres = 1_500.0

    func addRoutes(to router: Router<AppRequestContext>) {
        router.get("/", use: home)
        router.get("pages.css") { request, _ in renderer.styleSheetResponse(to: request) }
        router.get("pages.js") { request, _ in renderer.scriptResponse(to: request) }
        router.get("measure.js") { request, _ in renderer.asset(renderer.measureScript, to: request) }
        router.get("meter-worklet.js") { request, _ in renderer.asset(renderer.meterWorklet, to: request) }
        router.get("measure", use: measure)
        if let leaflet {
            for (name, file) in leaflet.files {
                router.get(RouterPath("leaflet/" + name)) { request, _ in renderer.asset(file, to: request) }
            }
        }
        router.get("venues/{venueId}", use: venue)
        router.get("venues/{venueId}/week.svg", use: weekSVG)
        router.post("venues/{venueId}/report", use: report)
    }

    // MARK: Find a quiet place

    @Sendable func home(_ request: Request, context: AppRequestContext) async throws -> Response {
        let bands = try await cache.currentBands()
        let form = SearchForm(request, bands: bands)
        guard form.errors.isEmpty, form.q != nil || form.near != nil else {
            // The form alone, or the form with its errors.
            guard form.errors.isEmpty, request.uri.query?.isEmpty ?? true else {
                return homePage(form, bands: bands, searched: false, results: [], request: request)
            }
            return try await cache.respond(.home, cacheControl: cacheControl, to: request) {
                // The bands again, after the cache's ticket: a band change meanwhile is seen.
                let bands = try await cache.currentBands()
                let form = SearchForm(request, bands: bands)
                return renderer.made(homeBytes(form, bands: bands, searched: false, results: []), keepFor: nil)
            }
        }
        let results = try await search(form, bands: bands)
        return homePage(form, bands: bands, searched: true, results: results, request: request)
    }

    private func homePage(
        _ form: SearchForm, bands: Bands, searched: Bool, results: [HomeContent.Result], request: Request
    ) -> Response {
        renderer.page(
            homeBytes(form, bands: bands, searched: searched, results: results),
            status: form.errors.isEmpty ? .ok : .unprocessableContent, to: request, cacheControl: cacheControl)
    }

    /// The page: `home.mustache` rendered once (``homeFrame``) around the content ``HomeContent``
    /// writes, so that no page of results goes through the template engine.
    private func homeBytes(_ form: SearchForm, bands: Bands, searched: Bool, results: [HomeContent.Result])
        -> [UInt8]
    {
        HomeContent(form: form, bands: bands, searched: searched, results: results, map: map)
            .page(in: homeFrame).bytes
    }

    /// `home.mustache` around its content, with the service's map (or none).
    static func homeFrame(_ renderer: PagesRenderer, map: PageMap?) throws -> PagesRenderer.Frame {
        try renderer.frame("home") { content in
            HomePage(page: content, map: map.map { HomePage.Map(tiles: $0.tilesURL, attribution: $0.attribution) })
        }
    }

    /// The venues found, from the search index in memory, each with its week at the hour asked
    /// for (from the index too), filtered by the form.
    private func search(_ form: SearchForm, bands: Bands) async throws -> [HomeContent.Result] {
        let now = Date()
        let at: Date? = form.day == nil ? now : nil
        let limit = form.bandIndex != nil || form.easyToTalk ? Self.read : Self.shown
        let page: VenueFinder.Page
        if let q = form.q {
            page = try await finder.searchByName(
                .init(prefix: q, near: form.near, radiusMetres: Self.radiusMetres, at: at, limit: limit),
                bands: bands)
        } else if let near = form.near {
            page = try await finder.search(
                .init(
                    latitude: near.latitude, longitude: near.longitude, radiusMetres: Self.radiusMetres, at: at,
                    limit: limit),
                bands: bands)
        } else {
            return []
        }
        // The hour of each venue's strip: the one asked for, or its own hour now.
        var clocks = Self.Clocks()
        let hours = page.hits.map { hit in
            (
                venueID: hit.venue.id,
                hour: form.hour ?? hit.cell?.localHour.hour ?? clocks.localHour(of: hit.venue, at: now)
            )
        }
        let weeks = try await finder.week(at: hours, bands: bands)
        var results: [HomeContent.Result] = []
        for (hit, hour) in zip(page.hits, hours) {
            let week = weeks[hit.venue.id] ?? Array(repeating: nil, count: 7)
            var cell = hit.cell
            if let day = form.day { cell = week[day - 1] }
            if let most = form.bandIndex {
                guard let cell, (bands.bands.firstIndex { $0.label == cell.label } ?? 0) <= most else { continue }
            }
            if form.easyToTalk {
                guard let cell, PlainWords.conversationBand(cell) == .easy else { continue }
            }
            var href = "/venues/\(hit.venue.externalID)"
            if let day = form.day, let hour = form.hour {
                // The venue's page then shows its quieter neighbours at that hour too.
                href += "?day=\(day)&hour=\(hour)"
            }
            results.append(
                HomeContent.Result(
                    name: hit.venue.name, href: href, latitude: hit.venue.latitude, longitude: hit.venue.longitude,
                    address: hit.venue.address, distanceMetres: form.near != nil ? hit.distanceMetres : nil,
                    cell: cell, overall: hit.overall, week: week, stripHour: hour.hour))
            if results.count == Self.shown { break }
        }
        return results
    }

    /// Venues' clocks by zone, made once a page (a `TimeZone` is dear to make).
    struct Clocks {
        private var byZone: [String: VenueClock] = [:]

        /// The venue-local hour of `date` by the venue's zone, as the search index's clock tells
        /// it (UTC for a venue without a zone, or a zone Foundation does not know: a guess, only
        /// for which hour its strip shows).
        mutating func localHour(of venue: Venue, at date: Date) -> Int {
            let zone = venue.timezone ?? ""
            if let clock = byZone[zone] { return clock.localHour(at: date).hour }
            let clock = venue.timezone.flatMap(VenueClock.init(timeZoneIdentifier:)) ?? VenueClock(utcOffsetMinutes: 0)
            byZone[zone] = clock
            return clock.localHour(at: date).hour
        }
    }

    /// The next instant, from `date`, at which it is `hour` (its middle) in the venue's zone (UTC
    /// for a venue without one, or a zone Foundation does not know).
    static func next(_ hour: LocalHour, of venue: Venue, after date: Date) -> Date {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = venue.timezone.flatMap { TimeZone(identifier: $0) } ?? .gmt
        // Foundation's weekdays: Sunday 1 … Saturday 7; ISO's: Monday 1 … Sunday 7.
        let components = DateComponents(hour: hour.hour, minute: 30, weekday: hour.weekday % 7 + 1)
        return calendar.nextDate(after: date, matching: components, matchingPolicy: .nextTime) ?? date
    }

    // MARK: A venue

    @Sendable func venue(_ request: Request, context: AppRequestContext) async throws -> Response {
        guard let externalID = Self.venueID(context) else { return notFound(request) }
        // Quieter places at another hour (`?day=&hour=`): not kept (168 pages a venue), one round
        // trip as the page's.
        let query = FormBody(encoded: request.uri.query ?? "")
        if query["day"] != nil || query["hour"] != nil {
            let bands = try await cache.currentBands()
            guard let day = query["day"].flatMap(Int.init), (1...7).contains(day),
                let hour = query["hour"].flatMap(Int.init), (0...23).contains(hour)
            else {
                guard var object = try await venueObject(externalID: externalID, bands: bands, report: nil) else {
                    return notFound(request)
                }
                object.alternativesError = "Choose a day from the list and an hour from 00:00 to 23:00."
                return renderer.page(
                    "venue", object, status: .unprocessableContent, to: request, cacheControl: "no-store")
            }
            guard
                let object = try await venueObject(
                    externalID: externalID, bands: bands, report: nil, at: LocalHour(weekday: day, hour: hour))
            else { return notFound(request) }
            return renderer.page("venue", object, to: request, cacheControl: cacheControl)
        }
        // The bands are read inside: after the cache's ticket, so a band change meanwhile is seen.
        return try await cache.respond(.venue(externalID: externalID), cacheControl: cacheControl, to: request) {
            let bands = try await cache.currentBands()
            guard let object = try await venueObject(externalID: externalID, bands: bands, report: nil) else {
                return .send(notFound(request))
            }
            return renderer.made("venue", object, keepFor: venuePageLifetime)
        }
    }

    /// What a venue's page shows, read in one round trip (the venue, its count and its cells;
    /// the alternatives nearby from the search index); `nil` for an unknown venue. With `report`,
    /// the form as sent and its errors; with `chosen`, the alternatives at that venue-local hour
    /// (its next occurrence) instead of now.
    private func venueObject(
        externalID: String, bands: Bands, report: (form: PageReportForm, errors: [String: String])?,
        at chosen: LocalHour? = nil
    ) async throws -> VenuePage? {
        async let alternativesNow =
            chosen == nil
            ? finder.alternatives(
                externalID: externalID, at: Date(), radiusMetres: Self.radiusMetres, limit: 5, bands: bands) : nil
        guard let sheet = try await loudness.sheet(externalID: externalID, bands: bands) else { return nil }
        var found = try await alternativesNow
        if let chosen {
            found = try await finder.alternatives(
                externalID: externalID, at: Self.next(chosen, of: sheet.grid.venue, after: Date()),
                radiusMetres: Self.radiusMetres, limit: 5, bands: bands)
        }
        return VenuePage(sheet: sheet, bands: bands, found: found, chosen: chosen, report: report)
    }

    @Sendable func weekSVG(_ request: Request, context: AppRequestContext) async throws -> Response {
        guard let externalID = Self.venueID(context) else { return notFound(request) }
        return try await cache.respond(.weekSVG(externalID: externalID), cacheControl: cacheControl, to: request) {
            let bands = try await cache.currentBands()
            guard let sheet = try await loudness.sheet(externalID: externalID, bands: bands) else {
                return .send(notFound(request))
            }
            let svg = WeekChart(cells: sheet.grid.cells, bands: bands).svg(
                title: "\(sheet.grid.venue.name): level by weekday and hour, venue-local time")
            return .keep(
                body: Array(svg.utf8), contentType: "image/svg+xml; charset=utf-8",
                headers: renderer.headers, keepFor: nil)
        }
    }

    // MARK: Measure here

    /// Lengths offered, seconds; `?seconds=N` (10 … 300) adds N, for tests and short visits.
    static let measureLengths = [60, 120, 180, 240, 300]
    static let measureSeconds = 10...300

    /// `/measure`, `/measure?venue={id}`: the meter in the browser (`measure.js`). Without a
    /// venue, the page finds one through the API; an unknown venue is 404, a bad `seconds` 422.
    @Sendable func measure(_ request: Request, context: AppRequestContext) async throws -> Response {
        let query = FormBody(encoded: request.uri.query ?? "")
        var testSeconds: Int?
        if let raw = query["seconds"] {
            guard let value = Int(raw), Self.measureSeconds.contains(value) else {
                return renderer.page(
                    "error",
                    ErrorPage(title: "Measure here", message: "“seconds” must be a whole number from 10 to 300."),
                    status: .unprocessableContent, to: request, cacheControl: "no-store")
            }
            testSeconds = value
        }
        let chosen = testSeconds ?? Self.measureLengths[0]
        var lengths = Self.measureLengths.map { seconds in
            PageOption(
                value: seconds, name: "\(seconds / 60) minute\(seconds == 60 ? "" : "s")", selected: seconds == chosen)
        }
        if let testSeconds, !Self.measureLengths.contains(testSeconds) {
            lengths.insert(PageOption(value: testSeconds, name: "\(testSeconds) seconds", selected: true), at: 0)
        }
        var object = MeasurePage(seconds: chosen, lengths: lengths, testSeconds: testSeconds)
        if let raw = query["venue"] {
            guard let id = Self.venueID(raw) else { return notFound(request) }
            let bands = try await cache.currentBands()
            guard let sheet = try await loudness.sheet(externalID: id, bands: bands) else { return notFound(request) }
            let venue = sheet.grid.venue
            object.title = "Measure at \(venue.name)"
            object.venue = .init(
                id: venue.externalID, name: venue.name, address: venue.address ?? "", hasAddress: venue.address != nil)
        }
        return renderer.page("measure", object, to: request, cacheControl: "no-store")
    }

    // MARK: This was wrong

    @Sendable func report(_ request: Request, context: AppRequestContext) async throws -> Response {
        guard let externalID = Self.venueID(context) else { return notFound(request) }
        let buffer = try await request.body.collect(upTo: BodyLimits.wireBytes)
        let fields = FormBody(encoded: String(buffer: buffer))
        let form = PageReportForm(venueExternalID: externalID, felt: fields["felt"], comment: fields["comment"])
        switch try await reports.submit(form, context: context) {
        case .received:
            return renderer.page(
                "report", ReportThanksPage(href: "/venues/\(externalID)"), to: request, cacheControl: "no-store")
        case .invalid(let errors):
            let bands = try await cache.currentBands()
            guard let object = try await venueObject(externalID: externalID, bands: bands, report: (form, errors))
            else { return notFound(request) }
            return renderer.page("venue", object, status: .unprocessableContent, to: request, cacheControl: "no-store")
        case .tooMany(let detail):
            return renderer.page(
                "error", ErrorPage(title: "Too many reports", message: "Too many reports from here: \(detail)."),
                status: .tooManyRequests, to: request, cacheControl: "no-store")
        case .unknownVenue:
            return notFound(request)
        }
    }

    func notFound(_ request: Request) -> Response {
        renderer.page(
            "error", ErrorPage(title: "Not found", message: "There is no such venue here."), status: .notFound,
            to: request,
            cacheControl: "no-store")
    }

    /// The `{venueId}` path parameter when it is a venue id (the API's rule), else `nil`.
    static func venueID(_ context: AppRequestContext) -> String? {
        venueID(context.parameters.get("venueId") ?? "")
    }

    /// `id` when it is a venue id (the API's rule), else `nil`.
    static func venueID(_ id: String) -> String? {
        let allowed = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._~:-")
        guard (1...128).contains(id.count), id.allSatisfy(allowed.contains) else { return nil }
        return id
    }
}

/// The fields of an `application/x-www-form-urlencoded` body: `+` is a space, `%XX` a byte.
struct FormBody {
    private var values: [String: String] = [:]

    init(encoded: String) {
        for pair in encoded.split(separator: "&", omittingEmptySubsequences: true) {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = Self.decode(parts[0])
            if values[name] == nil { values[name] = parts.count > 1 ? Self.decode(parts[1]) : "" }
        }
    }

    subscript(name: String) -> String? { values[name] }

    /// `+` as a space, then `%XX` as its byte, as Foundation's `removingPercentEncoding` decodes
    /// them, without its cost on every page of results; a `%` not followed by two hex digits, or
    /// bytes that are not UTF-8, are left to Foundation (which keeps the text with only `+`
    /// replaced, or repairs some bytes).
    static func decode(_ text: Substring) -> String {
        let utf8 = text.utf8
        guard utf8.contains(where: { $0 == UInt8(ascii: "+") || $0 == UInt8(ascii: "%") }) else { return String(text) }
        var spaced = Array(utf8)
        for index in spaced.indices where spaced[index] == UInt8(ascii: "+") { spaced[index] = UInt8(ascii: " ") }
        var decoded: [UInt8] = []
        decoded.reserveCapacity(spaced.count)
        var index = 0
        while index < spaced.count {
            guard spaced[index] == UInt8(ascii: "%") else {
                decoded.append(spaced[index])
                index += 1
                continue
            }
            guard index + 2 < spaced.count, let high = hexValue(spaced[index + 1]),
                let low = hexValue(spaced[index + 2])
            else { return foundation(spaced) }
            decoded.append(high << 4 | low)
            index += 3
        }
        return String(validating: decoded, as: UTF8.self) ?? foundation(spaced)
    }

    private static func foundation(_ spaced: [UInt8]) -> String {
        let text = String(decoding: spaced, as: UTF8.self)
        return text.removingPercentEncoding ?? text
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
