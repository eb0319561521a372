import Foundation
import HTTPTypes
import HearClearEngine
import HearClearModel
import HearClearServerTestSupport
import HearClearTestSupport
import HummingbirdTesting
import PostgresNIO
import Testing

@testable import HearClearAdmin

/// `/farmer/reports`, the reports on a venue's page and the dashboard's hours for review.
@Suite("Admin: reports of wrong data")
struct AdminReportsTests {
    /// How the dashboard marks an hour for review.
    static let mark = #"<span class="tag flagged">for review</span>"#

    /// Posts a report about the Arms' measured hour (`minute` minutes into it); returns its id.
    static func report(
        _ client: some TestClientProtocol, device: String, felt: String = "louder", comment: String? = nil,
        minute: Int = 1
    ) async throws -> String {
        let at = SubmissionFixture.previousHourStart.addingTimeInterval(Double(minute) * 60)
        let response = try await ReportFixture.post(
            client, ReportFixture.body(device: device, at: at, felt: felt, comment: comment))
        guard response.status == .created, let id = response.body.json["id"] as? String else {
            throw AdminBrowserError("report: \(response.status) \(response.body.string)")
        }
        return id
    }

    @Test("newest first beside the level shown then and now; filtered by status; open by default")
    func list() async throws {
        try await withRouterApp { client, database in
            _ = try await AdminDataSet.make(client, database)
            let older = try await Self.report(client, device: AdminDataSet.deviceA, comment: "older one")
            let newer = try await Self.report(
                client, device: AdminDataSet.deviceB, felt: "quieter", comment: "newer one")
            // The cell moves after the reports: 1.5 dB louder now than when they were made.
            try await database.query(
                "UPDATE loudness_cells SET level_dbfs = level_dbfs + 1.5", logger: testLogger)
            var browser = try await AdminBrowser.signedIn(client)
            let page = try await browser.get("/farmer/reports")
            let html = page.body.string

            #expect(page.status == .ok)
            #expect(html.contains(#"<a href="/farmer/reports" aria-current="page">Reports</a>"#))
            let newerAt = try #require(html.range(of: String(newer.prefix(8))))
            let olderAt = try #require(html.range(of: String(older.prefix(8))))
            #expect(newerAt.lowerBound < olderAt.lowerBound, "newest first")
            #expect(html.contains("felt louder") && html.contains("felt quieter"))
            #expect(html.contains("72.0 dB moderate"), "the level shown then")
            #expect(html.contains("73.5 dB moderate"), "the level now")
            #expect(html.contains("+1.5 dB since"))
            #expect(html.contains(ReportFixture.armsCell.day.capitalized))
            // Devices shortened, never whole.
            #expect(
                html.contains(DeviceKey.testShort(AdminDataSet.deviceA)) && !html.contains(AdminDataSet.deviceA)
                    && !html.contains(DeviceKey.tests.keyed(AdminDataSet.deviceA)))

            let all = try await browser.get("/farmer/reports?status=all").body.string
            let resolved = try await browser.get("/farmer/reports?status=resolved").body.string
            #expect(all.contains("older one") && all.contains("newer one"))
            #expect(!resolved.contains("older one") && resolved.contains("No resolved reports."))
        }
    }

    @Test("resolve and dismiss close a report, are audited, and happen once; CSRF is required")
    func resolveAndDismiss() async throws {
        try await withRouterApp { client, database in
            _ = try await AdminDataSet.make(client, database)
            let first = try await Self.report(client, device: AdminDataSet.deviceA)
            let second = try await Self.report(client, device: AdminDataSet.deviceB, felt: "about right")
            var browser = try await AdminBrowser.signedIn(client)
            let csrf = try await browser.csrf(on: "/farmer/reports")

            let forged = try await browser.post("/farmer/reports/\(first)/resolve", ["csrf": "wrong"])
            #expect(forged.status == .forbidden)
            #expect(try await database.count("venue_reports", where: "status = 'open'") == 2)

            let resolved = try await browser.post(
                "/farmer/reports/\(first)/resolve",
                ["csrf": csrf, "note": "excluded device D", "back": "/farmer/reports?status=open"])
            #expect(resolved.status == .seeOther)
            #expect(resolved.headers[.location] == "/farmer/reports?status=open&done=resolved")
            let dismissed = try await browser.post("/farmer/reports/\(second)/dismiss", ["csrf": csrf])
            #expect(dismissed.headers[.location] == "/farmer/reports?done=dismissed")
            let again = try await browser.post("/farmer/reports/\(first)/dismiss", ["csrf": csrf])
            #expect(again.headers[.location] == "/farmer/reports?done=unchanged")
            let unknown = try await browser.post("/farmer/reports/\(UUID().uuidString)/resolve", ["csrf": csrf])
            #expect(unknown.status == .notFound)
            let offsite = try await browser.post(
                "/farmer/reports/\(second)/resolve", ["csrf": csrf, "back": "https://evil.example/"])
            #expect(offsite.headers[.location] == "/farmer/reports?done=unchanged")

            #expect(
                try await database.count(
                    "venue_reports",
                    where: """
                        id = '\(first)' AND status = 'resolved' AND resolved_by = 'admin' AND resolved_at IS NOT NULL
                        AND resolution_note = 'excluded device D'
                        """) == 1)
            #expect(try await database.count("venue_reports", where: "id = '\(second)' AND status = 'dismissed'") == 1)
            #expect(
                try await database.count(
                    "admin_audit_log",
                    where:
                        "action = 'report resolved' AND subject = 'report \(first)' AND detail LIKE '%excluded device D'"
                )
                    == 1)
            #expect(
                try await database.count(
                    "admin_audit_log", where: "action = 'report dismissed' AND subject = 'report \(second)'") == 1)
            #expect(try await database.count("admin_audit_log", where: "action LIKE 'report %'") == 2)

            // The reporter sees where the report stands.
            let read = try await client.execute(uri: "/api/v2/venues/arms/reports/\(first)", method: .get)
            #expect(read.body.json["status"] as? String == "resolved")
            #expect(read.body.json["resolvedAt"] is String)

            let shown = try await browser.get("/farmer/reports?status=all&done=resolved").body.string
            #expect(shown.contains("Report resolved."))
            #expect(shown.contains("by admin") && shown.contains("excluded device D"))
            #expect(try await browser.get("/farmer/reports").body.string.contains("No open reports."))
            let dashboard = try await browser.get("/farmer/dashboard").body.string
            #expect(dashboard.contains("report resolved"))
        }
    }

    @Test("a comment with <script> is escaped on every page that shows it")
    func escaping() async throws {
        try await withRouterApp { client, database in
            _ = try await AdminDataSet.make(client, database)
            _ = try await Self.report(
                client, device: AdminDataSet.deviceA, comment: "<script>alert('x')</script> & <b>loud</b>")
            // The venue named <script>…</script> gets one too.
            let xss = try await ReportFixture.post(
                client, venue: AdminDataSet.xss,
                ReportFixture.body(device: AdminDataSet.deviceB, comment: "\"><img src=x>"))
            #expect(xss.status == .created)
            var browser = try await AdminBrowser.signedIn(client)
            for path in ["/farmer/reports", "/farmer/reports?status=all", "/farmer/venues/arms", "/farmer/venues/xss"] {
                let html = try await browser.get(path).body.string
                #expect(!html.contains("<script"), "\(path)")
                #expect(!html.contains("<b>loud") && !html.contains("<img"), "\(path)")
            }
            let reports = try await browser.get("/farmer/reports").body.string
            #expect(reports.contains("&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; &amp; &lt;b&gt;loud&lt;/b&gt;"))
            #expect(reports.contains("&quot;&gt;&lt;img src=x&gt;"))
            #expect(reports.contains("&lt;script&gt;alert(1)&lt;/script&gt;"), "the venue's name too")
        }
    }

    @Test("an hour disputed by two devices is marked for review on the dashboard; one device is not enough")
    func dashboardMark() async throws {
        try await withRouterApp { client, database in
            _ = try await AdminDataSet.make(client, database)
            var browser = try await AdminBrowser.signedIn(client)
            let cell = ReportFixture.armsCell
            let hour = "\(cell.day.capitalized) \(cell.hour < 10 ? "0" : "")\(cell.hour):00"

            // One device twice, and another saying "about right": not for review.
            _ = try await Self.report(client, device: AdminDataSet.deviceA, minute: 1)
            _ = try await Self.report(client, device: AdminDataSet.deviceA, felt: "quieter", minute: 2)
            _ = try await Self.report(client, device: AdminDataSet.deviceC, felt: "about right", minute: 3)
            let before = try await browser.get("/farmer/dashboard").body.string
            #expect(before.contains("3 open"))
            #expect(!before.contains(Self.mark))

            // A second device disputes it: marked, with what was said and the level now.
            let b = try await Self.report(client, device: AdminDataSet.deviceB, minute: 4)
            let marked = try await browser.get("/farmer/dashboard").body.string
            #expect(marked.contains(Self.mark))
            #expect(marked.contains(hour))
            #expect(marked.contains("2 louder, 1 quieter"))
            #expect(marked.contains("72.0 dB moderate"))
            #expect(marked.contains(#"<a href="/farmer/venues/arms">The Arms</a>"#))

            // Dismissing the second device's report takes the mark away.
            let csrf = try await browser.csrf(on: "/farmer/reports")
            _ = try await browser.post("/farmer/reports/\(b)/dismiss", ["csrf": csrf])
            #expect(!(try await browser.get("/farmer/dashboard").body.string.contains(Self.mark)))
        }
    }

    @Test("a venue's page shows its open reports, with actions that come back to it")
    func venuePage() async throws {
        try await withRouterApp { client, database in
            _ = try await AdminDataSet.make(client, database)
            let id = try await Self.report(client, device: AdminDataSet.deviceA, comment: "too loud to talk")
            var browser = try await AdminBrowser.signedIn(client)

            let arms = try await browser.get("/farmer/venues/arms").body.string
            let xss = try await browser.get("/farmer/venues/xss").body.string
            #expect(arms.contains("Open reports"))
            #expect(arms.contains("too loud to talk"))
            #expect(arms.contains(#"name="back" value="/farmer/venues/arms""#))
            #expect(!xss.contains("too loud to talk"))

            let csrf = try await browser.csrf(on: "/farmer/venues/arms")
            let resolved = try await browser.post(
                "/farmer/reports/\(id)/resolve", ["csrf": csrf, "back": "/farmer/venues/arms"])
            #expect(resolved.headers[.location] == "/farmer/venues/arms?done=resolved")
            let after = try await browser.get("/farmer/venues/arms?done=resolved").body.string
            #expect(after.contains("Report resolved."))
            #expect(!after.contains("too loud to talk"))
        }
    }
}
