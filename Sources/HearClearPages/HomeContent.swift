import HearClearEngine
import LoudnessCore

/// The content of "Find a quiet place" — the form and the results — written as HTML by Swift, not
/// by the template engine (docs/ARCHITECTURE.md, "Pages for people", "Result pages"): a page of 20
/// results with their strips is about a thousand values, and Mustache looks each one up through
/// the runtime's dynamic casts (a millisecond a page, most of its cost). Every value goes through
/// ``HTMLText``, which escapes it; `home.mustache` places this content in the layout.
struct HomeContent {
    /// One venue found, as the page shows it.
    struct Result {
        var name: String
        var href: String
        var latitude: Double
        var longitude: Double
        var address: String?
        /// Shown with coordinates only.
        var distanceMetres: Double?
        var cell: LoudnessReads.Cell?
        var overall: (levelDB: Double, label: String)?
        /// Its cells at one venue-local hour on each day, Monday first.
        var week: [LoudnessReads.Cell?]
        var stripHour: Int
    }

    let form: SearchForm
    let bands: Bands
    let searched: Bool
    let results: [Result]
    /// The map's tile server and attribution, when the service has one.
    let map: PageMap?

    /// The whole page: the content in `frame` (the layout around it, ``PagesRenderer/Frame``).
    func page(in frame: PagesRenderer.Frame) -> HTMLText {
        let out = HTMLText(
            startingWith: frame.before,
            capacity: frame.after.count + (searched ? 6_000 + 1_600 * results.count : 4_000))
        write(to: out)
        out.raw(bytes: frame.after)
        return out
    }

    private func write(to out: HTMLText) {
        out.raw("<h1>Find a quiet place</h1>\n")
        if !form.errors.isEmpty {
            out.raw("<div class=\"errors\" role=\"alert\"><p>Please check the form:</p><ul>")
            for error in form.errors { out.raw("<li>").text(error).raw("</li>") }
            out.raw("</ul></div>\n")
        }
        writeForm(out)
        if searched { writeResults(out) }
    }

    private func writeForm(_ out: HTMLText) {
        out.raw("<form class=\"search\" method=\"get\" action=\"/\">\n")
        writeWhere(out)
        writeWhen(out)
        writeHowQuiet(out)
        out.raw("  <p><button type=\"submit\">Search</button></p>\n</form>\n")
    }

    /// The form's first part: a venue's name, or coordinates (with "Near me" for the script to show).
    private func writeWhere(_ out: HTMLText) {
        let values = form.rawValues
        out.raw(
            """
              <fieldset>
                <legend>Where</legend>
                <p><label for="q">Venue name</label>
                <input id="q" name="q" type="search" maxlength="100" value="
            """
        ).text(values.q).raw(
            """
            " autocomplete="off"></p>
                <p class="near-me" hidden><button type="button" id="near-me">Near me</button> <span id="near-me-status" role="status"></span></p>
                <p class="or">or near coordinates</p>
                <div class="pair">
                  <p><label for="lat">Latitude</label> <input id="lat" name="lat" inputmode="decimal" value="
            """
        ).text(values.lat).raw(
            """
            " placeholder="51.5072"></p>
                  <p><label for="lon">Longitude</label> <input id="lon" name="lon" inputmode="decimal" value="
            """
        ).text(values.lon).raw(
            """
            " placeholder="-0.1276"></p>
                </div>
              </fieldset>

            """)
    }

    /// The form's second part: now, or a day and an hour of the venue's own time.
    private func writeWhen(_ out: HTMLText) {
        out.raw(
            """
              <fieldset>
                <legend>When</legend>
                <p><input id="when-now" type="radio" name="when" value="now"
            """
        )
        if form.day == nil { out.raw(" checked") }
        out.raw(
            "> <label for=\"when-now\">Now</label></p>\n    <p><input id=\"when-at\" type=\"radio\" name=\"when\" value=\"at\""
        )
        if form.day != nil { out.raw(" checked") }
        out.raw(
            """
            > <label for="when-at">On a day, at an hour (the venue's own time)</label></p>
                <div class="pair">
                  <p><label for="day">Day</label> <select id="day" name="day">
            """)
        for (index, name) in PlainWords.dayNames.enumerated() {
            option(out, value: String(index + 1), name: name, selected: form.day == index + 1)
        }
        out.raw("</select></p>\n      <p><label for=\"hour\">Hour</label> <select id=\"hour\" name=\"hour\">")
        for hour in 0..<24 {
            option(out, value: String(hour), name: PlainWords.hour(hour), selected: form.hour == hour)
        }
        out.raw(
            """
            </select></p>
                </div>
              </fieldset>

            """)
    }

    /// The form's third part: at most a band's level, and "easy to talk".
    private func writeHowQuiet(_ out: HTMLText) {
        out.raw(
            """
              <fieldset>
                <legend>How quiet</legend>
                <p><label for="band">Level</label> <select id="band" name="band"><option value="">Any level</option>
            """)
        for (index, band) in bands.bands.enumerated() {
            option(
                out, value: band.label, name: "At most " + PlainWords.level(label: band.label).lowercased(),
                selected: form.bandIndex == index)
        }
        out.raw(
            """
            </select></p>
                <p><input id="talk" type="checkbox" name="talk" value="easy"
            """)
        if form.easyToTalk { out.raw(" checked") }
        out.raw(
            """
            > <label for="talk">Easy to talk</label></p>
              </fieldset>

            """)
    }

    private func option(_ out: HTMLText, value: String, name: String, selected: Bool) {
        out.raw("<option value=\"").text(value).raw(selected ? "\" selected>" : "\">").text(name).raw("</option>")
    }

    private func writeResults(_ out: HTMLText) {
        out.raw("<section aria-labelledby=\"results-heading\">\n<h2 id=\"results-heading\">Results for ")
            .text(form.whenText).raw("</h2>\n")
        if let map, !results.isEmpty {
            out.raw(
                "<div id=\"map\" class=\"map\" hidden role=\"region\" aria-label=\"Map of the results\" data-tiles=\""
            ).text(map.tilesURL).raw("\" data-attribution=\"").text(map.attribution).raw("\"></div>\n")
        }
        if results.isEmpty {
            out.raw("<p>No venue found. Try another name, a wider choice of levels, or another hour.</p>\n")
        }
        out.raw("<ol class=\"results\">\n")
        let strips = WeekChart.StripBands(bands: bands)
        for result in results { write(result, strips: strips, to: out) }
        out.raw("</ol>\n</section>\n")
    }

    private func write(_ result: Result, strips: WeekChart.StripBands, to out: HTMLText) {
        out.raw("  <li data-lat=\"").raw(PlainWords.fixed(result.latitude, decimals: 5))
            .raw("\" data-lon=\"").raw(PlainWords.fixed(result.longitude, decimals: 5)).raw("\">\n")
        out.raw("    <h3><a href=\"").text(result.href).raw("\">").text(result.name).raw("</a></h3>\n")
        if let address = result.address { out.raw("    <p class=\"address\">").text(address).raw("</p>\n") }
        if let distance = result.distanceMetres {
            out.raw("    <p>").text(PlainWords.distance(distance)).raw(" away</p>\n")
        }
        if let cell = result.cell {
            out.raw("    <p class=\"level\"><strong>").text(PlainWords.level(label: cell.label)).raw("</strong> (")
                .text(PlainWords.decibels(cell.levelDB)).raw(", ").text(cell.label).raw(") at ")
                .text(PlainWords.dayNames[cell.localHour.weekday - 1]).raw(" ").text(
                    PlainWords.hour(cell.localHour.hour))
            if cell.estimated { out.raw(" — <em>estimated</em>, no check-ins of its own") }
            out.raw("</p>\n    <p>Conversation: ").text(PlainWords.conversation(PlainWords.conversationBand(cell)))
                .raw("</p>\n")
        } else if let overall = result.overall {
            out.raw("    <p class=\"level\">Usually: <strong>").text(PlainWords.level(label: overall.label))
                .raw("</strong> (").text(PlainWords.decibels(overall.levelDB)).raw(")</p>\n")
        } else {
            out.raw("    <p>Not measured at this hour yet.</p>\n")
        }
        let hour = PlainWords.hour(result.stripHour)
        out.raw("    <p class=\"strip-caption\" aria-hidden=\"true\">Each day at ").text(hour)
            .raw(", dB (* estimated):</p>\n    <ol class=\"strip\" aria-label=\"Each day at ").text(hour).raw("\">")
        // Each day: its colour class, its rounded level (`–` for none), and what a screen reader
        // says of it.
        for (day, cell) in result.week.enumerated() {
            guard let cell else {
                out.raw("<li class=\"empty\"><span aria-hidden=\"true\">").text(PlainWords.shortDayNames[day])
                    .raw("<br>–</span><span class=\"visually-hidden\">").text(PlainWords.dayNames[day])
                    .raw(": no data</span></li>")
                continue
            }
            out.raw("<li class=\"").text(strips.colour(cell, bands: bands)).raw("\"><span aria-hidden=\"true\">")
                .text(PlainWords.shortDayNames[day]).raw("<br>").raw(String(Int(cell.levelDB.rounded())))
            if cell.estimated { out.raw("*") }
            out.raw("</span><span class=\"visually-hidden\">").text(PlainWords.dayNames[day]).raw(": ")
                .text(strips.levelWords(cell)).raw(", ").text(PlainWords.decibels(cell.levelDB))
            if cell.estimated { out.raw(", estimated") }
            out.raw("</span></li>")
        }
        out.raw("</ol>\n  </li>\n")
    }
}

/// HTML being written, as UTF-8 bytes: ``raw(_:)`` for the page's own markup, ``text(_:)`` for
/// every value, escaped for text and attribute values (`&`, `<`, `>`, `"`, `'`). A class, so that
/// calls chain (`out.raw(…).text(…)`); one page's, never shared.
final class HTMLText {
    /// One page's, written by one task: the runtime's exclusivity checks at every append (a few
    /// percent of a page of results) guard nothing here.
    @exclusivity(unchecked) private(set) var bytes: [UInt8]

    /// Starting with `prefix` (the layout before the content), room kept for `capacity` bytes.
    init(startingWith prefix: [UInt8] = [], capacity: Int = 0) {
        bytes = []
        bytes.reserveCapacity(prefix.count + capacity)
        bytes.append(contentsOf: prefix)
    }

    /// What was written, as a string.
    var html: String { String(decoding: bytes, as: UTF8.self) }

    @discardableResult
    func raw(_ markup: String) -> HTMLText {
        bytes.append(contentsOf: markup.utf8)
        return self
    }

    /// Bytes already HTML (the layout after the content).
    func raw(bytes markup: [UInt8]) {
        bytes.append(contentsOf: markup)
    }

    @discardableResult
    func text(_ value: String) -> HTMLText {
        if value.utf8.withContiguousStorageIfAvailable({ escape($0) }) == nil { escape(Array(value.utf8)) }
        return self
    }

    private func escape(_ utf8: some Collection<UInt8>) {
        var start = utf8.startIndex
        var index = start
        while index != utf8.endIndex {
            if let entity = Self.entity(utf8[index]) {
                bytes.append(contentsOf: utf8[start..<index])
                bytes.append(contentsOf: entity)
                start = utf8.index(after: index)
            }
            index = utf8.index(after: index)
        }
        bytes.append(contentsOf: utf8[start..<utf8.endIndex])
    }

    private static let ampersand = Array("&amp;".utf8)
    private static let lessThan = Array("&lt;".utf8)
    private static let greaterThan = Array("&gt;".utf8)
    private static let quote = Array("&quot;".utf8)
    private static let apostrophe = Array("&#39;".utf8)

    private static func entity(_ byte: UInt8) -> [UInt8]? {
        switch byte {
        case UInt8(ascii: "&"): ampersand
        case UInt8(ascii: "<"): lessThan
        case UInt8(ascii: ">"): greaterThan
        case UInt8(ascii: "\""): quote
        case UInt8(ascii: "'"): apostrophe
        default: nil
        }
    }
}
