import Foundation
import HTTPTypes
import HearClearEngine
import HearClearModel
import HearClearPages
import HearClearServer
import HearClearServerTestSupport
import HearClearTestSupport
import Hummingbird
import HummingbirdTesting
import LoudnessCore
import NIOCore
import Testing

/// The pages for people (HearClearPages) as a browser without JavaScript sees them, on the
/// admin's data set: "The Arms" with one measured hour (72.0 dB, moderate) and a venue named
/// `<script>alert(1)</script>`, both in Sydney.
@Suite("Pages for people: /, a venue, its week, the report form")
struct PagesTests {
    static let form: HTTPFields = [.contentType: "application/x-www-form-urlencoded"]

    /// The Arms' measured hour, venue-local: ISO weekday and hour.
    static var armsHour: LocalHour {
        VenueClock(timeZoneIdentifier: "Australia/Sydney")!.localHour(at: SubmissionFixture.previousHourStart)
    }

    /// The one script a page may load: `/pages.js`, from here, never inline.
    static func onlyOwnScript(_ html: String, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(html.components(separatedBy: "<script").count == 2, sourceLocation: sourceLocation)
        #expect(html.contains("<script src=\"/pages.js\" defer></script>"), sourceLocation: sourceLocation)
    }

    @Test("/: the form, plain HTML, every input labelled, no inline script, ETag and 304, gzip")
    func home() async throws {
        try await withRouterApp { client, _ in
            let response = try await client.execute(uri: "/", method: .get)
            #expect(response.status == .ok)
            #expect(response.headers[.contentType] == "text/html; charset=utf-8")
            let html = response.body.string
            #expect(html.contains("<html lang=\"en\">"))
            #expect(html.contains("<h1>Find a quiet place</h1>"))
            Self.onlyOwnScript(html)
            // "Near me" needs the script: hidden without it.
            #expect(
                html.contains("<p class=\"near-me\" hidden><button type=\"button\" id=\"near-me\">Near me</button>"))
            #expect(!html.contains("id=\"map\""))
            let policy = try #require(response.headers[.contentSecurityPolicy])
            #expect(policy.contains("script-src 'self';") && policy.contains("img-src 'self';"))
            #expect(!policy.contains("unsafe"))
            #expect(!html.contains("http://") && !html.contains("https://"))
            for id in ["q", "lat", "lon", "when-now", "when-at", "day", "hour", "band", "talk"] {
                #expect(html.contains("id=\"\(id)\""), "\(id)")
                #expect(html.contains("<label for=\"\(id)\""), "label for \(id)")
            }
            #expect(html.contains("<option value=\"quiet\">"))
            let tag = try #require(response.headers[.eTag])
            let again = try await client.execute(uri: "/", method: .get, headers: [.ifNoneMatch: tag])
            #expect(again.status == .notModified)
            let gzipped = try await client.execute(uri: "/", method: .get, headers: [.acceptEncoding: "gzip"])
            #expect(gzipped.headers[.contentEncoding] == "gzip")
            let css = try await client.execute(uri: "/pages.css", method: .get)
            #expect(css.status == .ok)
            #expect(css.headers[.contentType] == "text/css; charset=utf-8")
            #expect(css.body.string.contains(":focus-visible"))
            let js = try await client.execute(uri: "/pages.js", method: .get)
            #expect(js.status == .ok)
            #expect(js.headers[.contentType] == "text/javascript; charset=utf-8")
            #expect(js.body.string.contains("getCurrentPosition"))
            // No map without a tile server: Leaflet is not served.
            #expect(try await client.execute(uri: "/leaflet/leaflet.js", method: .get).status == .notFound)
        }
    }

    @Test("--map-tiles-url: the results' map with Leaflet from here, tiles from that server only, credit escaped")
    func map() async throws {
        var configuration = testConfiguration()
        configuration.map = try PageMap(
            tilesURL: "https://{s}.tiles.example.org/{z}/{x}/{y}.png", attribution: "<b>Tiles</b> & data",
            leafletDirectory: "/usr/share/javascript/leaflet")
        try await withRouterApp(configuration: configuration) { client, database in
            _ = try await AdminDataSet.make(client, database)
            let response = try await client.execute(uri: "/?lat=-33.8688&lon=151.2093", method: .get)
            #expect(response.status == .ok)
            let html = response.body.string
            #expect(html.contains("<script src=\"/leaflet/leaflet.js\" defer></script>"))
            #expect(html.contains("<link rel=\"stylesheet\" href=\"/leaflet/leaflet.css\">"))
            #expect(
                html.contains(
                    "data-tiles=\"https://{s}.tiles.example.org/{z}/{x}/{y}.png\" data-attribution=\"&lt;b&gt;Tiles&lt;/b&gt; &amp; data\""
                ))
            #expect(html.contains("<li data-lat=\"-33.86880\" data-lon=\"151.20930\">"))
            let policy = try #require(response.headers[.contentSecurityPolicy])
            #expect(policy.contains("img-src 'self' https://*.tiles.example.org;"))
            for (file, type) in [
                ("leaflet.js", "text/javascript; charset=utf-8"), ("images/marker-icon.png", "image/png"),
            ] {
                let asset = try await client.execute(uri: "/leaflet/" + file, method: .get)
                #expect(asset.status == .ok, "\(file)")
                #expect(asset.headers[.contentType] == type)
            }
            // Nothing found: no map.
            let none = try await client.execute(uri: "/?lat=10&lon=10", method: .get)
            #expect(!none.body.string.contains("id=\"map\""))
        }
        for bad in [
            "https://tiles.example.org/{z}/{x}.png", "ftp://tiles.example.org/{z}/{x}/{y}.png",
            "https://tiles.example.org/{z}/{x}/{y}.png\"onerror=", "/{z}/{x}/{y}.png",
        ] {
            #expect(throws: ConfigurationError.self, "\(bad)") {
                try PageMap(tilesURL: bad, attribution: "", leafletDirectory: "/usr/share/javascript/leaflet")
            }
        }
        #expect(throws: ConfigurationError.self) {
            try PageMap(
                tilesURL: "https://tiles.example.org/{z}/{x}/{y}.png", attribution: "",
                leafletDirectory: "/nowhere") as Any
        }
    }

    @Test("/?q=: by name, the level in words, links to the venue; a name too long is 422")
    func searchByName() async throws {
        try await withRouterApp { client, database in
            _ = try await AdminDataSet.make(client, database)
            let response = try await client.execute(uri: "/?q=arms&when=now", method: .get)
            #expect(response.status == .ok)
            let html = response.body.string
            #expect(html.contains("<a href=\"/venues/arms\">The Arms</a>"))
            #expect(html.contains("Usually: <strong>Moderate — you can talk"), "\(html)")
            // As a browser sends the form: a space is "+", and the empty fields come along.
            let asSent = try await client.execute(
                uri: "/?q=The+Ar&lat=&lon=&when=now&day=1&hour=0&band=", method: .get)
            #expect(asSent.body.string.contains("<a href=\"/venues/arms\">The Arms</a>"))
            #expect(asSent.body.string.contains("value=\"The Ar\""))
            // Words in any order, case and accents folded (issue 40).
            let anyOrder = try await client.execute(uri: "/?q=ARMS+th%C3%A9&when=now", method: .get)
            #expect(anyOrder.body.string.contains("<a href=\"/venues/arms\">The Arms</a>"))
            let other = try await client.execute(uri: "/?q=arms+pub&when=now", method: .get)
            #expect(!other.body.string.contains("<a href=\"/venues/arms\">The Arms</a>"))
            #expect(other.body.string.contains("No venue found"))
            let long = String(repeating: "a", count: 101)
            let bad = try await client.execute(uri: "/?q=\(long)", method: .get)
            #expect(bad.status == .unprocessableContent)
            #expect(bad.body.string.contains("at most 100 characters"))
            let badPoint = try await client.execute(uri: "/?lat=95&lon=0", method: .get)
            #expect(badPoint.status == .unprocessableContent)
        }
    }

    @Test("/?lat=&lon=: at a weekday and hour, with and without easy to talk")
    func searchByPoint() async throws {
        try await withRouterApp { client, database in
            _ = try await AdminDataSet.make(client, database)
            let hour = Self.armsHour
            let query = "/?lat=-33.8688&lon=151.2093&when=at&day=\(hour.weekday)&hour=\(hour.hour)"
            let response = try await client.execute(uri: query, method: .get)
            #expect(response.status == .ok)
            let html = response.body.string
            // At a chosen hour, the link opens the venue's page at that hour.
            #expect(html.contains("<a href=\"/venues/arms?day=\(hour.weekday)&amp;hour=\(hour.hour)\">The Arms</a>"))
            #expect(
                html.contains(
                    "<strong>Moderate — you can talk, a little louder than usual</strong> (72.0 dB, moderate)"))
            #expect(html.contains("0 m away"))
            // 72 dB: raised voices, not easy to talk.
            #expect(html.contains("Conversation: raised voices needed"))
            // The week strip at that hour: the measured day in words and as a number, the others without data.
            let day = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"][hour.weekday - 1]
            #expect(html.contains("Each day at \(String(format: "%02d:00", hour.hour)), dB"))
            #expect(
                html.contains(
                    "<span class=\"visually-hidden\">\(day): moderate — you can talk, a little louder than usual, 72.0 dB</span>"
                ))
            #expect(html.contains(">72</span>"))
            #expect(html.components(separatedBy: ": no data</span>").count - 1 >= 6)
            let easy = try await client.execute(uri: query + "&talk=easy", method: .get)
            #expect(easy.status == .ok)
            #expect(!easy.body.string.contains("/venues/arms?day="))
            #expect(easy.body.string.contains("No venue found"))
            // At most quiet: the Arms (moderate) is left out; at most moderate, it stays.
            let quiet = try await client.execute(uri: query + "&band=quiet", method: .get)
            #expect(!quiet.body.string.contains("/venues/arms?day="))
            let moderate = try await client.execute(uri: query + "&band=moderate", method: .get)
            #expect(moderate.body.string.contains("/venues/arms?day="))
        }
    }

    @Test("/measure: its own one script, the worklet from here, the venue named; unknown venue 404, bad seconds 422")
    func measure() async throws {
        try await withRouterApp { client, database in
            _ = try await AdminDataSet.make(client, database)
            let venue = try await client.execute(uri: "/venues/arms", method: .get)
            #expect(venue.body.string.contains("<a href=\"/measure?venue=arms\">Measure here</a>"))

            let response = try await client.execute(uri: "/measure?venue=arms&seconds=10", method: .get)
            #expect(response.status == .ok)
            let html = response.body.string
            #expect(html.components(separatedBy: "<script").count == 2)
            #expect(html.contains("<script src=\"/measure.js\" defer></script>"))
            #expect(html.contains("data-venue-id=\"arms\" data-venue-name=\"The Arms\""))
            #expect(html.contains("<option value=\"10\" selected>10 seconds</option>"))
            #expect(html.contains("No sound is recorded or sent"))
            for id in ["measure-length", "measure-progress"] {
                #expect(html.contains("<label for=\"\(id)\""), "label for \(id)")
            }
            let policy = try #require(response.headers[.contentSecurityPolicy])
            #expect(policy.contains("script-src 'self';") && policy.contains("connect-src 'self';"))
            #expect(!policy.contains("unsafe"))
            #expect(response.headers[HTTPField.Name("Permissions-Policy")!]?.contains("microphone=(self)") == true)

            let chooser = try await client.execute(uri: "/measure", method: .get)
            #expect(chooser.status == .ok)
            #expect(chooser.body.string.contains("<label for=\"place-q\">Venue name</label>"))
            #expect(!chooser.body.string.contains("id=\"measure-start\""))

            for (file, needle) in [("/measure.js", "getUserMedia"), ("/meter-worklet.js", "registerProcessor")] {
                let script = try await client.execute(uri: file, method: .get)
                #expect(script.status == .ok, "\(file)")
                #expect(script.headers[.contentType] == "text/javascript; charset=utf-8")
                #expect(script.body.string.contains(needle), "\(file)")
            }
            #expect(try await client.execute(uri: "/measure?venue=nowhere", method: .get).status == .notFound)
            for bad in ["seconds=9", "seconds=301", "seconds=ten"] {
                let refused = try await client.execute(uri: "/measure?venue=arms&" + bad, method: .get)
                #expect(refused.status == .unprocessableContent, "\(bad)")
                #expect(refused.body.string.contains("from 10 to 300"))
            }
        }
    }

    @Test("/venues/{id}: name, week as SVG and table, quietest hours, og tags; week.svg cacheable")
    func venuePage() async throws {
        try await withRouterApp { client, database in
            _ = try await AdminDataSet.make(client, database)
            let response = try await client.execute(uri: "/venues/arms", method: .get)
            #expect(response.status == .ok)
            let html = response.body.string
            let hour = Self.armsHour
            let day = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"][hour.weekday - 1]
            let hourText = String(format: "%02d:00", hour.hour)
            let nextText = String(format: "%02d:00", hour.hour + 1)
            #expect(html.contains("<h1>The Arms</h1>"))
            #expect(html.contains("<meta property=\"og:title\" content=\"The Arms · HearClear\">"))
            #expect(html.contains("<meta property=\"og:description\" content=\"The Arms: usually moderate (72.0 dB)"))
            #expect(html.contains("<svg xmlns=\"http://www.w3.org/2000/svg\""))
            #expect(html.contains("<caption id=\"week-table-caption\">"))
            #expect(html.contains("<th scope=\"col\">\(day)</th>"))
            #expect(html.contains("<th scope=\"row\">\(hourText)</th>"))
            #expect(html.contains("72 dB moderate</td>"))
            #expect(html.contains("Quietest: <span>\(day) \(hourText)–\(nextText)</span>"))
            #expect(html.contains("<form method=\"post\" action=\"/venues/arms/report\">"))
            Self.onlyOwnScript(html)

            #expect(html.contains("<h2 id=\"alternatives-heading\">Quieter places nearby, now</h2>"))
            #expect(
                html.contains("<label for=\"alt-day\">Day</label>")
                    && html.contains("<label for=\"alt-hour\">Hour</label>"))

            // Quieter places at the Arms' measured hour: its own level then, the heading says when.
            let then = try await client.execute(
                uri: "/venues/arms?day=\(hour.weekday)&hour=\(hour.hour)", method: .get)
            #expect(then.status == .ok)
            let thenHTML = then.body.string
            #expect(thenHTML.contains("Quieter places nearby, on \(day) at \(hourText)</h2>"))
            #expect(thenHTML.contains("Here on \(day) at \(hourText) (its own time): <strong>Moderate"))
            #expect(thenHTML.contains("<option value=\"\(hour.weekday)\" selected>\(day)</option>"))
            // An hour without a level: nothing to compare, said so.
            let otherDay = hour.weekday % 7 + 1
            let empty = try await client.execute(uri: "/venues/arms?day=\(otherDay)&hour=\(hour.hour)", method: .get)
            #expect(empty.body.string.contains("This place has no level for then, so nothing is compared."))
            for bad in ["day=8&hour=1", "day=1&hour=24", "day=1", "hour=x"] {
                let refused = try await client.execute(uri: "/venues/arms?" + bad, method: .get)
                #expect(refused.status == .unprocessableContent, "\(bad)")
                #expect(refused.body.string.contains("Choose a day from the list"), "\(bad)")
            }

            let svg = try await client.execute(uri: "/venues/arms/week.svg", method: .get)
            #expect(svg.status == .ok)
            #expect(svg.headers[.contentType] == "image/svg+xml; charset=utf-8")
            #expect(svg.headers[.cacheControl] == "public, max-age=60, stale-while-revalidate=30")
            let tag = try #require(svg.headers[.eTag])
            #expect(svg.body.string.contains(">72</text>"))
            let again = try await client.execute(
                uri: "/venues/arms/week.svg", method: .get, headers: [.ifNoneMatch: tag])
            #expect(again.status == .notModified)
        }
    }

    @Test("A venue named <script> and a comment with <script> appear escaped, never raw")
    func escaping() async throws {
        try await withRouterApp { client, database in
            _ = try await AdminDataSet.make(client, database)
            let escaped = "&lt;script&gt;alert(1)&lt;/script&gt;"
            for uri in ["/venues/xss", "/?q=%3Cscript", "/venues/xss/week.svg"] {
                let response = try await client.execute(uri: uri, method: .get)
                #expect(response.status == .ok, "\(uri)")
                #expect(!response.body.string.contains("<script>"), "\(uri)")
                #expect(response.body.string.contains(escaped), "\(uri)")
            }
            // The form again, with its error and the comment as sent, escaped.
            let response = try await client.execute(
                uri: "/venues/arms/report", method: .post, headers: Self.form,
                body: ByteBuffer(string: "comment=%3Cscript%3Ealert(2)%3C%2Fscript%3E"))
            #expect(response.status == .unprocessableContent)
            #expect(response.body.string.contains("&lt;script&gt;alert(2)&lt;/script&gt;</textarea>"))
            #expect(!response.body.string.contains("<script>"))
        }
    }

    @Test("The report form creates a report; bad input is the form again with errors; unknown venue 404")
    func report() async throws {
        try await withRouterApp { client, database in
            _ = try await AdminDataSet.make(client, database)
            let response = try await client.execute(
                uri: "/venues/arms/report", method: .post, headers: Self.form,
                body: ByteBuffer(string: "felt=louder&comment=A+band+started+%3Cscript%3E"))
            #expect(response.status == .ok, "\(response.body.string)")
            #expect(response.body.string.contains("Thank you"))
            #expect(try await database.count("venue_reports") == 1)
            let rows = try await database.query("SELECT felt, comment FROM venue_reports")
            for try await (felt, comment) in rows.decode((String, String?).self) {
                #expect(felt == "louder")
                #expect(comment == "A band started <script>")
            }

            let missing = try await client.execute(
                uri: "/venues/arms/report", method: .post, headers: Self.form, body: ByteBuffer(string: "comment=hi"))
            #expect(missing.status == .unprocessableContent)
            #expect(missing.body.string.contains("Choose how it is"))
            let long = String(repeating: "x", count: 501)
            let tooLong = try await client.execute(
                uri: "/venues/arms/report", method: .post, headers: Self.form,
                body: ByteBuffer(string: "felt=quieter&comment=\(long)"))
            #expect(tooLong.status == .unprocessableContent)
            #expect(tooLong.body.string.contains("The comment must be at most 500 characters"))
            let odd = try await client.execute(
                uri: "/venues/arms/report", method: .post, headers: Self.form, body: ByteBuffer(string: "felt=meh"))
            #expect(odd.status == .unprocessableContent)
            #expect(try await database.count("venue_reports") == 1)

            let unknown = try await client.execute(uri: "/venues/nowhere", method: .get)
            #expect(unknown.status == .notFound)
            #expect(unknown.headers[.contentType] == "text/html; charset=utf-8")
            #expect(unknown.body.string.contains("There is no such venue here."))
            let unknownSVG = try await client.execute(uri: "/venues/nowhere/week.svg", method: .get)
            #expect(unknownSVG.status == .notFound)
            let unknownReport = try await client.execute(
                uri: "/venues/nowhere/report", method: .post, headers: Self.form,
                body: ByteBuffer(string: "felt=louder"))
            #expect(unknownReport.status == .notFound)
        }
    }
}
