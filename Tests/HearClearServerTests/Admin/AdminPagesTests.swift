import Foundation
import HTTPTypes
import HearClearEngine
import HearClearModel
import HearClearServerTestSupport
import HearClearTestSupport
import HummingbirdTesting
import Testing

@testable import HearClearAdmin

/// Each page against ``AdminDataSet``, whose figures are known by hand.
@Suite("Admin pages show the right figures")
struct AdminPagesTests {
    @Test("dashboard: totals, judgements, queue and the latest venues, devices and check-ins")
    func dashboard() async throws {
        try await withRouterApp { client, database in
            _ = try await AdminDataSet.make(client, database)
            var browser = try await AdminBrowser.signedIn(client)
            let html = try await browser.get("/farmer/dashboard").body.string

            // 2 venues, 5 devices, 6 check-ins of 120 s; A, B, C and xss's included, D outlier, E excluded.
            for figure in [
                "<dt>Venues</dt><dd>2</dd>", "<dt>Devices</dt><dd>5</dd>", "<dt>Check-ins</dt><dd>6</dd>",
                "<dt>Samples</dt><dd>720</dd>", "<dt>Pending</dt><dd>0</dd>", "<dt>Included</dt><dd>4</dd>",
                "<dt>Outlier</dt><dd>1</dd><dd class=\"detail\">17 %</dd>", "<dt>Excluded</dt><dd>1</dd>",
                "<dt>Queued entries</dt><dd>0</dd>", "queue empty",
            ] {
                #expect(html.contains(figure), "\(figure)")
            }
            #expect(html.contains(">The Arms</a>"))
            #expect(html.contains(DeviceKey.testShort(AdminDataSet.deviceD)), "devices shortened")
            #expect(html.contains("cell outlier"))
            #expect(html.contains("login"), "the admin's own sign-in is in the log")
        }
    }

    @Test("venues: newest activity first, search by part of the name or the start of the id, pages")
    func venues() async throws {
        try await withRouterApp { client, database in
            _ = try await AdminDataSet.make(client, database)
            var browser = try await AdminBrowser.signedIn(client)
            let all = try await browser.get("/farmer/venues").body.string
            let byName = try await browser.get("/farmer/venues?q=ARMS").body.string
            let byID = try await browser.get("/farmer/venues?q=xs").body.string
            let none = try await browser.get("/farmer/venues?q=%25").body.string

            let arms = try #require(all.range(of: "/farmer/venues/arms"))
            let xss = try #require(all.range(of: "/farmer/venues/xss"))
            #expect(arms.lowerBound < xss.lowerBound, "the stuck check-in at the Arms came last")
            #expect(byName.contains("/farmer/venues/arms") && !byName.contains("/farmer/venues/xss"))
            #expect(byID.contains("/farmer/venues/xss") && !byID.contains("/farmer/venues/arms"))
            #expect(none.contains("No venues match"), "% is taken literally")
            #expect(!all.contains("rel=\"next\""))
        }
    }

    @Test("the venue list pages 25 at a time, newest first")
    func venuePages() async throws {
        try await withRouterApp { client, database in
            for index in 0..<30 {
                try await database.query(
                    """
                    INSERT INTO venues (external_id, name, latitude, longitude, created_at)
                    VALUES (\("v\(index)"), \("Venue \(index)"), 0, 0, now() - make_interval(mins => \(index)::integer))
                    """
                )
            }
            var browser = try await AdminBrowser.signedIn(client)
            let first = try await browser.get("/farmer/venues").body.string
            let second = try await browser.get("/farmer/venues?page=2").body.string

            #expect(first.components(separatedBy: "<tr><td><a href=\"/farmer/venues/").count - 1 == 25)
            #expect(first.contains("href=\"/farmer/venues/v0\"") && first.contains("href=\"/farmer/venues/v24\""))
            #expect(first.contains("href=\"/farmer/venues?page=2\" rel=\"next\""))
            #expect(second.contains("href=\"/farmer/venues/v29\"") && !second.contains("href=\"/farmer/venues/v24\""))
            #expect(second.contains("rel=\"prev\"") && !second.contains("rel=\"next\""))
        }
    }

    @Test("a venue: details, map link, heat map with level and count, check-ins with status and figures")
    func venue() async throws {
        try await withRouterApp { client, database in
            let set = try await AdminDataSet.make(client, database)
            var browser = try await AdminBrowser.signedIn(client)
            let html = try await browser.get("/farmer/venues/arms").body.string

            #expect(html.contains("<h1>The Arms</h1>"))
            #expect(
                html.contains(
                    "https://www.openstreetmap.org/?mlat=-33.86880&amp;mlon=151.20930#map=18/-33.86880/151.20930"))
            #expect(html.contains("Australia/Sydney"))
            #expect(html.contains("72.0 dB, moderate"), "overall: the median of its one cell")
            // One cell: 72 dB, three check-ins counted; 167 empty hours.
            #expect(html.components(separatedBy: "class=\"hm-cell hm-empty\"").count - 1 == 167)
            #expect(html.contains(">72</text>") && html.contains(">×3</text>"))
            #expect(html.contains("72.0 dB moderate · 3 check-ins, 3 devices"))
            // Check-ins: A at −38 dBFS + 110 = 72.0 (its Leq −38.0331), D at 92.0, E stuck.
            #expect(html.contains(">outlier</span>") && html.contains("cell outlier"))
            #expect(html.contains("stuck meter"))
            #expect(html.contains("<td class=\"num\">72.0</td>") && html.contains("<td class=\"num\">92.0</td>"))
            #expect(html.contains("<td class=\"num\">100 %</td>") && html.contains("<td class=\"num\">0 %</td>"))
            #expect(html.contains("Pixel 8 <code>\(DeviceKey.testShort(AdminDataSet.deviceD))</code>"))
            #expect(html.contains(AdminDataSet.link(set.outlier)))
        }
    }

    @Test("an outlier check-in: chart, its hour against the cell, modified z, and why")
    func outlierCheckin() async throws {
        try await withRouterApp { client, database in
            let set = try await AdminDataSet.make(client, database)
            var browser = try await AdminBrowser.signedIn(client)
            let html = try await browser.get(AdminDataSet.link(set.outlier)).body.string

            #expect(html.contains("<span class=\"tag outlier\">outlier</span>"))
            #expect(html.contains("<polyline class=\"average\""))
            #expect(html.contains("120 of 120 seconds kept"))
            #expect(html.contains("|modified z| over 3.5"))
            // The cell it was compared with: A, B, C: 72.0 dB.
            #expect(html.contains("72.0 ("))
            #expect(html.contains(", 3)</td>"))
            // Its Leq: −18.0331 dBFS + 110 = 92.0 dB; residual +20.0 dB against the other devices.
            #expect(html.contains("<td class=\"num\">92.0</td>"))
            #expect(html.contains("+20.0"))
            #expect(html.contains("Force include") && html.contains("Force exclude"))
            #expect(!html.contains(AdminDataSet.deviceD))
        }
    }

    @Test("a stuck check-in: every second marked stuck, and why it was excluded")
    func stuckCheckin() async throws {
        try await withRouterApp { client, database in
            let set = try await AdminDataSet.make(client, database)
            var browser = try await AdminBrowser.signedIn(client)
            let html = try await browser.get(AdminDataSet.link(set.stuck)).body.string

            #expect(html.contains("<span class=\"tag excluded\">excluded</span>"))
            #expect(html.contains("stuck meter (120 s)"))
            #expect(html.contains("class=\"removed r-stuck\""))
            #expect(html.contains("0 of 120 seconds kept"))
            #expect(html.contains("Most removed seconds were a stuck meter"))
        }
    }

    @Test("devices: a device with more check-ins in one hour than a person makes is flagged, and its overlap shown")
    func overHumanPace() async throws {
        try await withRouterApp { client, database in
            let intake = Engine.testing(database).intake
            // 13 check-ins of 2 minutes, one every 4 minutes: 13 within one hour, over the 12
            // a person could make; they do not overlap, so none is excluded for it.
            let hour = Date().addingTimeInterval(-6 * 3_600)
            let start = Date(timeIntervalSince1970: (hour.timeIntervalSince1970 / 3_600).rounded(.down) * 3_600)
            for index in 0..<13 {
                _ = try await intake.submit(
                    SubmissionFixture.submission(
                        venue: "busy-bar", timezone: nil, device: "bot0000-busy-77", levelDBFS: -40,
                        start: start.addingTimeInterval(Double(index) * 240), seconds: 120))
            }
            _ = try await intake.submit(
                SubmissionFixture.submission(
                    venue: "calm-cafe", timezone: nil, device: "person0-calm-88", levelDBFS: -40, start: start,
                    seconds: 120))
            var browser = try await AdminBrowser.signedIn(client)
            let html = try await browser.get("/farmer/devices").body.string
            let busy = try #require(
                html.components(separatedBy: "<tr>").first { $0.contains(DeviceKey.testShort("bot0000-busy-77")) })
            #expect(busy.contains("over human pace"))
            #expect(busy.contains("13 in its busiest hour"))
            let calm = try #require(
                html.components(separatedBy: "<tr>").first { $0.contains(DeviceKey.testShort("person0-calm-88")) })
            #expect(!calm.contains("over human pace"))
        }
    }

    @Test("devices: model, check-ins, share of outliers, bias, state")
    func devices() async throws {
        try await withRouterApp { client, database in
            _ = try await AdminDataSet.make(client, database)
            var browser = try await AdminBrowser.signedIn(client)
            let html = try await browser.get("/farmer/devices").body.string

            let row = try #require(
                html.components(separatedBy: "<tr>").first { $0.contains(DeviceKey.testShort(AdminDataSet.deviceD)) })
            #expect(row.contains("Pixel 8"))
            #expect(row.contains("<td class=\"num\">1</td>"))
            #expect(row.contains("<td class=\"num\">100 %</td>"))
            #expect(row.contains("+20.0 dB"), "D against A, B, C")
            #expect(row.contains("1 shared check-in"))
            #expect(!row.contains("flagged"), "one shared check-in is not enough to flag")
            let a = try #require(
                html.components(separatedBy: "<tr>").first { $0.contains(DeviceKey.testShort(AdminDataSet.deviceA)) })
            #expect(a.contains("<td class=\"num\">2</td>") && a.contains("<td class=\"num\">0 %</td>"))
        }
    }
}
