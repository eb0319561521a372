import Foundation
import HTTPTypes
import HearClearServerTestSupport
import HummingbirdBcrypt
import HummingbirdTesting
import NIOCore

@testable import HearClearAdmin

/// A tiny browser for `/farmer`: keeps cookies, reads CSRF tokens from forms, posts forms.
struct AdminBrowser {
    let client: any TestClientProtocol
    private(set) var cookies: [String: String] = [:]
    /// Sent with every request besides the cookies (e.g. the `X-Forwarded-For` of a proxy).
    var headers: HTTPFields = [:]

    init(_ client: any TestClientProtocol) {
        self.client = client
    }

    /// A browser that has signed in as the test admin.
    static func signedIn(_ client: any TestClientProtocol) async throws -> AdminBrowser {
        var browser = AdminBrowser(client)
        let response = try await browser.signIn()
        guard response.status == .seeOther else { throw AdminBrowserError("login answered \(response.status)") }
        return browser
    }

    /// Opens the login form and submits the test credentials (or `password`).
    mutating func signIn(password: String = AdminTestCredentials.password, username: String = AdminTestCredentials.user)
        async throws -> TestResponse
    {
        let form = try await get("/farmer")
        let csrf = Self.csrf(in: form.body.string) ?? ""
        return try await post("/farmer/login", ["csrf": csrf, "username": username, "password": password])
    }

    mutating func get(_ path: String) async throws -> TestResponse {
        let response = try await client.execute(uri: path, method: .get, headers: cookieHeaders)
        remember(response)
        return response
    }

    /// POSTs `fields` form-encoded, in order.
    mutating func post(_ path: String, _ fields: KeyValuePairs<String, String>) async throws -> TestResponse {
        try await post(path, fields.map { ($0.key, $0.value) })
    }

    mutating func post(_ path: String, _ fields: [(String, String)]) async throws -> TestResponse {
        var headers = cookieHeaders
        headers[.contentType] = "application/x-www-form-urlencoded"
        let body = fields.map { Self.encode($0.0) + "=" + Self.encode($0.1) }.joined(separator: "&")
        let response = try await client.execute(
            uri: path, method: .post, headers: headers, body: ByteBuffer(string: body))
        remember(response)
        return response
    }

    /// The CSRF token of the page at `path` (the logout form of every signed-in page has one).
    mutating func csrf(on path: String = "/farmer/dashboard") async throws -> String {
        let page = try await get(path)
        guard let token = Self.csrf(in: page.body.string) else { throw AdminBrowserError("no csrf field on \(path)") }
        return token
    }

    var cookieHeaders: HTTPFields {
        var fields = headers
        guard !cookies.isEmpty else { return fields }
        fields[.cookie] = cookies.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: "; ")
        return fields
    }

    mutating func forget(_ cookie: String) {
        cookies[cookie] = nil
    }

    private mutating func remember(_ response: TestResponse) {
        for header in response.headers[values: .setCookie] {
            let pair = header.split(separator: ";")[0].split(
                separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard pair.count == 2 else { continue }
            let name = String(pair[0]).trimmingCharacters(in: .whitespaces)
            let value = String(pair[1])
            if value.isEmpty || header.lowercased().contains("max-age=0") {
                cookies[name] = nil
            } else {
                cookies[name] = value
            }
        }
    }

    static func csrf(in html: String) -> String? {
        guard let range = html.range(of: #"name="csrf" value="([^"]*)""#, options: .regularExpression) else {
            return nil
        }
        let match = html[range]
        return match.split(separator: "\"").dropFirst(3).first.map(String.init)
    }

    static func encode(_ text: String) -> String {
        let allowed = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
        return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? ""
    }
}

struct AdminBrowserError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

extension ByteBuffer {
    var string: String { String(buffer: self) }
}
