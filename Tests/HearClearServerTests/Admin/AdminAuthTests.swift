import Foundation
import HTTPTypes
import HearClearModel
import HearClearServerTestSupport
import HearClearTestSupport
import HummingbirdTesting
import PostgresNIO
import Testing

@testable import HearClearAdmin
@testable import HearClearEngine
@testable import HearClearServer

@Suite("Admin sign-in, sessions and CSRF")
struct AdminAuthTests {
    static let checkinID = "7d6c2d2e-3f0b-4c55-9a0e-0a4c8f7e1b21"
    static let pages = [
        "/farmer/dashboard", "/farmer/venues", "/farmer/venues?q=arms", "/farmer/venues/arms",
        "/farmer/checkins/\(checkinID)", "/farmer/devices", "/farmer/bands", "/farmer/nothing-here",
        "/farmer/changes", "/farmer/campaigns",
    ]
    static let actions = [
        "/farmer/logout", "/farmer/bands", "/farmer/bands/preview", "/farmer/devices/1/exclude",
        "/farmer/devices/1/include", "/farmer/checkins/\(checkinID)/include",
        "/farmer/checkins/\(checkinID)/exclude", "/farmer/checkins/\(checkinID)/clear",
        "/farmer/campaigns/1/exclude", "/farmer/campaigns/1/dismiss", "/farmer/venues/arms/changes/1/dismiss",
    ]

    @Test("every page and action without a session redirects to the login form")
    func unauthenticated() async throws {
        try await withRouterApp { client, _ in
            var browser = AdminBrowser(client)
            for page in Self.pages {
                let response = try await browser.get(page)
                #expect(response.status == .seeOther, "GET \(page)")
                #expect(response.headers[.location]?.hasPrefix("/farmer?next=") == true, "GET \(page)")
            }
            for action in Self.actions {
                let response = try await browser.post(action, ["csrf": "anything"])
                #expect(response.status == .seeOther, "POST \(action)")
                #expect(response.headers[.location] == "/farmer", "POST \(action)")
            }
            let forged = try await client.execute(
                uri: "/farmer/dashboard", method: .get,
                headers: [.cookie: "hearclear_admin=" + String(repeating: "A", count: 43)]
            )
            #expect(forged.status == .seeOther)
        }
    }

    @Test("the login form sets a strict, HttpOnly CSRF cookie and a CSRF field")
    func loginForm() async throws {
        try await withRouterApp { client, _ in
            let response = try await client.execute(uri: "/farmer", method: .get)

            #expect(response.status == .ok)
            #expect(response.headers[.contentType] == "text/html; charset=utf-8")
            #expect(response.headers[.contentSecurityPolicy]?.contains("default-src 'none'") == true)
            let cookie = try #require(response.headers[values: .setCookie].first { $0.hasPrefix("hearclear_login=") })
            #expect(
                cookie.contains("HttpOnly") && cookie.contains("SameSite=Strict") && cookie.contains("Path=/farmer"))
            #expect(AdminBrowser.csrf(in: response.body.string)?.count == 43)
        }
    }

    @Test("signing in sets an expiring HttpOnly, SameSite=Strict session cookie and opens the dashboard")
    func signIn() async throws {
        try await withRouterApp { client, database in
            var browser = AdminBrowser(client)
            let response = try await browser.signIn()

            #expect(response.status == .seeOther)
            #expect(response.headers[.location] == "/farmer/dashboard")
            let cookie = try #require(response.headers[values: .setCookie].first { $0.hasPrefix("hearclear_admin=") })
            #expect(cookie.contains("HttpOnly"))
            #expect(cookie.contains("SameSite=Strict"))
            #expect(cookie.contains("Max-Age=43200"))
            #expect(!cookie.contains("Secure"), "Secure only when configured")
            let dashboard = try await browser.get("/farmer/dashboard")
            #expect(dashboard.status == .ok)
            #expect(dashboard.body.string.contains("<h1>Dashboard</h1>"))
            #expect(try await database.count("admin_sessions") == 1)
            let token = try #require(browser.cookies["hearclear_admin"])
            #expect(try await database.count("admin_sessions", where: "csrf_token = '\(token)'") == 0)
        }
    }

    @Test("an expired session opens nothing")
    func expiredSession() async throws {
        try await withRouterApp { client, database in
            var browser = try await AdminBrowser.signedIn(client)
            try await database.query("UPDATE admin_sessions SET expires_at = now() - interval '1 second'")
            let response = try await browser.get("/farmer/dashboard")

            #expect(response.status == .seeOther)
            #expect(response.headers[.location] == "/farmer?next=%2Ffarmer%2Fdashboard")
        }
    }

    @Test("the session cookie is Secure when configured")
    func secureCookie() async throws {
        var configuration = testConfiguration()
        configuration.adminSecureCookie = true
        try await withRouterApp(configuration: configuration) { client, _ in
            var browser = AdminBrowser(client)
            let response = try await browser.signIn()
            let cookie = try #require(response.headers[values: .setCookie].first { $0.hasPrefix("hearclear_admin=") })
            #expect(cookie.contains("Secure"))
        }
    }

    @Test("a wrong password or user is 401 with the form again and no session")
    func wrongPassword() async throws {
        try await withRouterApp { client, database in
            var browser = AdminBrowser(client)
            let wrong = try await browser.signIn(password: "guess")
            let unknown = try await browser.signIn(username: "root")

            #expect(wrong.status == .unauthorized)
            #expect(wrong.body.string.contains("Wrong user or password."))
            #expect(unknown.status == .unauthorized)
            #expect(browser.cookies["hearclear_admin"] == nil)
            #expect(try await database.count("admin_sessions") == 0)
            #expect(try await browser.get("/farmer/dashboard").status == .seeOther)
        }
    }

    @Test("failed sign-ins back off: after five, even the right password waits (429)")
    func backoff() async throws {
        try await withRouterApp { client, database in
            var browser = AdminBrowser(client)
            for _ in 0..<5 {
                #expect(try await browser.signIn(password: "guess").status == .unauthorized)
            }
            // The fifth failure blocked the user (and the address) for 2^0 = 1 s.
            let rows = try await database.query(
                """
                SELECT key, failures, extract(epoch FROM blocked_until - updated_at)::float8
                FROM admin_login_throttle ORDER BY key
                """)
            var blocks: [String: (failures: Int, seconds: Double)] = [:]
            for try await (key, failures, seconds) in rows.decode((String, Int, Double).self) {
                blocks[key] = (failures, seconds)
            }
            #expect(blocks.count == 2)
            #expect(blocks.values.allSatisfy { $0.failures == 5 && abs($0.seconds - 1) < 0.01 })
            // That second may be over before the next request on a loaded machine (bcrypt checked
            // the fifth password after the block was set): hold the block while the right
            // password is tried, which must then wait too.
            try await database.query(
                "UPDATE admin_login_throttle SET blocked_until = now() + interval '1 hour'")
            let blocked = try await browser.signIn()

            #expect(blocked.status == .tooManyRequests)
            #expect(blocked.headers[.retryAfter] != nil)
            #expect(blocked.body.string.contains("Too many failed sign-ins"))
            #expect(browser.cookies["hearclear_admin"] == nil)
        }
    }

    @Test("behind a trusted proxy the backoff keys on the client it names, so one guesser holds back no one else")
    func backoffBehindProxy() async throws {
        var configuration = testConfiguration()
        configuration.rateLimits.exempt = []
        configuration.rateLimits.trustedProxies = IPNetwork.loopback
        try await withTestDatabase { database, databaseConfiguration in
            let app = try await buildApplication(
                configuration: configuration, database: .external(databaseConfiguration), logger: testLogger)
            // Over a real socket from 127.0.0.1, the proxy; X-Forwarded-For names the clients.
            try await app.boundedTest(.live) { client in
                var guesser = AdminBrowser(client)
                guesser.headers[.xForwardedFor] = "198.51.100.7"
                // Another user name than the admin's: only the address is held back.
                for _ in 0..<5 {
                    #expect(try await guesser.signIn(password: "guess", username: "mallory").status == .unauthorized)
                }
                // Held for as long as the test takes, however slow the machine.
                try await database.query(
                    "UPDATE admin_login_throttle SET blocked_until = now() + interval '1 hour'")
                #expect(try await guesser.signIn().status == .tooManyRequests)

                var admin = AdminBrowser(client)
                admin.headers[.xForwardedFor] = "203.0.113.20"
                let signedIn = try await admin.signIn()
                #expect(signedIn.status == .seeOther, "\(signedIn.status)")
                #expect(admin.cookies["hearclear_admin"] != nil)

                let keys = try await database.query("SELECT key FROM admin_login_throttle ORDER BY key")
                var held: [String] = []
                for try await key in keys.decode(String.self) { held.append(key) }
                #expect(held == ["ip:198.51.100.7"])
                let sessions = try await database.query("SELECT remote_address FROM admin_sessions")
                var addresses: [String?] = []
                for try await address in sessions.decode(String?.self) { addresses.append(address) }
                #expect(addresses == ["203.0.113.20"])
            }
        }
    }

    @Test("logging out ends the session on the server")
    func logout() async throws {
        try await withRouterApp { client, database in
            var browser = try await AdminBrowser.signedIn(client)
            let stolen = browser.cookieHeaders
            let csrf = try await browser.csrf()
            let response = try await browser.post("/farmer/logout", ["csrf": csrf])

            #expect(response.status == .seeOther)
            #expect(response.headers[.location] == "/farmer")
            #expect(try await database.count("admin_sessions") == 0)
            let replayed = try await client.execute(uri: "/farmer/dashboard", method: .get, headers: stolen)
            #expect(replayed.status == .seeOther, "the old cookie opens nothing")
        }
    }

    @Test("a POST without the CSRF token, or with a wrong one, is 403")
    func csrfRefused() async throws {
        try await withRouterApp { client, database in
            var browser = try await AdminBrowser.signedIn(client)
            let missing = try await browser.post("/farmer/logout", [:] as KeyValuePairs<String, String>)
            let wrong = try await browser.post("/farmer/logout", ["csrf": "not-the-token"])
            var other = try await AdminBrowser.signedIn(client)
            let otherSession = try await other.csrf()
            let foreign = try await browser.post("/farmer/logout", ["csrf": otherSession])

            #expect(missing.status == .forbidden)
            #expect(wrong.status == .forbidden)
            #expect(foreign.status == .forbidden, "a token of another session does not do")
            #expect(missing.headers[.contentType] == "text/html; charset=utf-8")
            #expect(try await database.count("admin_sessions") == 2)
        }
    }

    @Test("the login form's own CSRF token must match its cookie")
    func loginCSRF() async throws {
        try await withRouterApp { client, _ in
            var browser = AdminBrowser(client)
            _ = try await browser.get("/farmer")
            let forged = try await browser.post(
                "/farmer/login",
                ["csrf": "x", "username": AdminTestCredentials.user, "password": AdminTestCredentials.password]
            )
            browser.forget("hearclear_login")
            let cookieless = try await browser.post(
                "/farmer/login",
                ["csrf": "x", "username": AdminTestCredentials.user, "password": AdminTestCredentials.password]
            )

            #expect(forged.status == .forbidden)
            #expect(cookieless.status == .forbidden)
        }
    }

    @Test("after signing in, the admin returns to the page asked for, never to another site")
    func returnPath() async throws {
        try await withRouterApp { client, _ in
            var browser = AdminBrowser(client)
            let redirect = try await browser.get("/farmer/venues?q=the%20arms")
            let location = try #require(redirect.headers[.location])
            let next = try #require(location.components(separatedBy: "next=").last?.removingPercentEncoding)
            let form = try await browser.get(location)
            let csrf = try #require(AdminBrowser.csrf(in: form.body.string))
            let signedIn = try await browser.post(
                "/farmer/login",
                [
                    "csrf": csrf, "username": AdminTestCredentials.user, "password": AdminTestCredentials.password,
                    "next": next,
                ]
            )

            #expect(next == "/farmer/venues?q=the%20arms")
            #expect(form.body.string.contains(#"name="next" value="/farmer/venues?q=the%20arms""#))
            #expect(signedIn.headers[.location] == "/farmer/venues?q=the%20arms")
            let evil = try await browser.get("/farmer?next=//evil.example/farmer/")
            #expect(evil.headers[.location] == "/farmer/dashboard", "signed in: straight on, but not to another host")
        }
    }

    @Test("unknown admin pages and server errors are HTML pages without internals")
    func errorPages() async throws {
        try await withRouterApp { client, _ in
            var browser = try await AdminBrowser.signedIn(client)
            let missing = try await browser.get("/farmer/nothing-here")
            let venue = try await browser.get("/farmer/venues/no-such-venue")
            let checkin = try await browser.get("/farmer/checkins/not-a-uuid")

            for response in [missing, venue, checkin] {
                #expect(response.status == .notFound)
                #expect(response.headers[.contentType] == "text/html; charset=utf-8")
                #expect(!response.body.string.contains("Error("))
            }
        }
    }
}
