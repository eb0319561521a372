import Foundation
import HTTPTypes
import HearClearModel
import HearClearServerTestSupport
import HearClearTestSupport
import HummingbirdTesting
import Testing

@testable import HearClearAdmin

@Suite("Admin safety: escaping, no device ids, no internals")
struct AdminSafetyTests {
    /// Every page of the data set, as a signed-in admin sees it.
    static func allPages(_ set: AdminDataSet, _ browser: inout AdminBrowser) async throws -> [String: String] {
        var paths = [
            "/farmer/dashboard", "/farmer/venues", "/farmer/venues?q=script", "/farmer/venues/arms",
            "/farmer/venues/xss",
            "/farmer/devices", "/farmer/devices?excluded=1", "/farmer/bands", "/farmer/changes", "/farmer/campaigns",
            "/farmer/models",
        ]
        paths +=
            [set.a, set.b, set.c, set.outlier, set.xssCheckin].map(AdminDataSet.link) + [AdminDataSet.link(set.stuck)]
        var pages: [String: String] = [:]
        for path in paths {
            let response = try await browser.get(path)
            #expect(response.status == .ok, "\(path)")
            pages[path] = response.body.string
        }
        return pages
    }

    @Test("a venue named <script>alert(1)</script> shows as text everywhere")
    func escaping() async throws {
        try await withRouterApp { client, database in
            let set = try await AdminDataSet.make(client, database)
            var browser = try await AdminBrowser.signedIn(client)
            let pages = try await Self.allPages(set, &browser)

            for (path, html) in pages {
                #expect(!html.contains("<script"), "\(path)")
            }
            let escaped = "&lt;script&gt;alert(1)&lt;/script&gt;"
            for path in ["/farmer/dashboard", "/farmer/venues", "/farmer/venues?q=script", "/farmer/venues/xss"] {
                #expect(pages[path]?.contains(escaped) == true, "\(path)")
            }
            #expect(pages[AdminDataSet.link(set.xssCheckin)]?.contains(escaped) == true)
        }
    }

    @Test("no page shows a whole device id")
    func noDeviceIDs() async throws {
        try await withRouterApp { client, database in
            let set = try await AdminDataSet.make(client, database)
            var browser = try await AdminBrowser.signedIn(client)
            let pages = try await Self.allPages(set, &browser)

            for (path, html) in pages {
                for device in AdminDataSet.allDevices {
                    #expect(!html.contains(device), "\(path) shows \(device)")
                    #expect(!html.contains(String(device.prefix(12))), "\(path) shows most of \(device)")
                }
            }
        }
    }

    @Test("templates print values only through escaping {{ }}: no {{{ }}} and no {{& }}")
    func templatesEscape() throws {
        let directory = TestCluster.repositoryRoot + "/Admin"
        let files = try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.hasSuffix(".mustache") }
        #expect(files.count >= 10)
        for file in files {
            let text = try String(contentsOfFile: directory + "/" + file, encoding: .utf8)
            #expect(!text.contains("{{{"), "\(file)")
            #expect(!text.contains("{{&"), "\(file)")
            #expect(!text.contains("{{="), "\(file): no delimiter changes")
        }
    }

    @Test("a server error is a plain HTML page with the request id, no internals")
    func serverError() async throws {
        try await withRouterApp { client, database in
            var browser = try await AdminBrowser.signedIn(client)
            try await database.query("DROP TABLE admin_audit_log")
            let response = try await browser.get("/farmer/dashboard")

            #expect(response.status == .internalServerError)
            #expect(response.headers[.contentType] == "text/html; charset=utf-8")
            let html = response.body.string
            #expect(html.contains("It is logged with request id"))
            for leak in ["PSQL", "admin_audit_log", "Error(", ".swift", "relation", "does not exist"] {
                #expect(!html.contains(leak), "\(leak)")
            }
        }
    }

    @Test("admin pages are not cached, framed or scripted")
    func headers() async throws {
        try await withRouterApp { client, _ in
            var browser = try await AdminBrowser.signedIn(client)
            let response = try await browser.get("/farmer/dashboard")

            #expect(response.headers[.cacheControl] == "no-store")
            #expect(response.headers[.contentSecurityPolicy]?.contains("frame-ancestors 'none'") == true)
            #expect(
                response.headers[.contentSecurityPolicy]?.contains("script-src") == false,
                "default-src 'none' covers scripts")
            #expect(!response.body.string.contains("<script"))
        }
    }
}
