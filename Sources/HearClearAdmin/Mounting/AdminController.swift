import HTTPTypes
import HearClearHTTP
import HearClearModel
import Hummingbird

/// `/farmer`: the login form and its actions, the style sheet, and (behind
/// ``AdminSessionMiddleware``) every page, mounted by ``addRoutes(to:)``.
struct AdminController {
    let renderer: AdminRenderer
    let sessions: AdminSessionStore
    let login: AdminLogin
    let pages: [any AdminPageRoutes]

    func addRoutes(to router: Router<AppRequestContext>) {
        let farmer = router.group("farmer", context: AdminRequestContext.self)
            .add(middleware: AdminErrorMiddleware(renderer: renderer))
        farmer.get { request, _ in try await loginForm(request, next: request.uri.queryParameters["next"]) }
        farmer.post("login") { request, context in try await signIn(request, context: context) }
        farmer.get("farmer.css") { _, _ in renderer.styleSheetResponse() }

        let signedIn = farmer.group().add(middleware: AdminSessionMiddleware(sessions: sessions))
        signedIn.post("logout") { request, context in try await signOut(request, context: context) }
        for page in pages { page.addRoutes(to: signedIn) }
        signedIn.get("**") { _, _ -> Response in throw HTTPError(.notFound) }
        signedIn.post("**") { _, _ -> Response in throw HTTPError(.notFound) }
    }

    /// The form, or straight on when the session is still live. Each showing sets a fresh
    /// login CSRF cookie that the form's hidden field must match.
    private func loginForm(
        _ request: Request, next: Substring?, error: String? = nil, username: String = "",
        status: HTTPResponse.Status = .ok
    ) async throws -> Response {
        let target = next.map(String.init).flatMap { AdminLoginPage.isSafeReturnPath($0) ? $0 : nil }
        if error == nil, try await sessions.session(for: request) != nil {
            return AdminRenderer.redirect(to: target ?? "/farmer/dashboard")
        }
        let token = AdminSessionStore.randomToken()
        var response = renderer.page(
            "login",
            AdminLoginPage(csrf: token, next: target ?? "", username: username, error: error),
            status: status
        )
        response.setCookie(sessions.loginCookie(token))
        return response
    }

    private func signIn(_ request: Request, context: AdminRequestContext) async throws -> Response {
        let form = try await FormFields.from(request)
        guard let expected = request.cookies[AdminSessionStore.loginCookieName]?.value,
            let sent = form["csrf"], AdminSessionStore.isToken(expected),
            AdminSessionStore.constantTimeEquals(sent, expected)
        else {
            throw HTTPError(
                .forbidden, message: "The sign-in form expired or came from elsewhere. Open /farmer and sign in again.")
        }
        let username = String((form["username"] ?? "").prefix(200))
        let next = form["next"].map { Substring($0) }
        switch try await login.attempt(
            username: username, password: form["password"] ?? "", clientAddress: context.clientAddress)
        {
        case .signedIn(let token):
            let target = next.map(String.init).flatMap { AdminLoginPage.isSafeReturnPath($0) ? $0 : nil }
            var response = AdminRenderer.redirect(to: target ?? "/farmer/dashboard")
            response.setCookie(sessions.sessionCookie(token))
            response.setCookie(sessions.expiredCookie(AdminSessionStore.loginCookieName))
            return response
        case .rejected:
            return try await loginForm(
                request, next: next, error: "Wrong user or password.", username: username, status: .unauthorized)
        case .blocked(let seconds):
            var response = try await loginForm(
                request, next: next,
                error: "Too many failed sign-ins. Try again in \(AdminFormat.age(Double(seconds))).",
                username: username, status: .tooManyRequests)
            response.headers[.retryAfter] = String(seconds)
            return response
        }
    }

    private func signOut(_ request: Request, context: AdminRequestContext) async throws -> Response {
        let session = try context.requireSession()
        try await sessions.end(for: request)
        try await login.audit.record(username: session.username, action: "logout")
        var response = AdminRenderer.redirect(to: "/farmer")
        response.setCookie(sessions.expiredCookie(AdminSessionStore.cookieName))
        return response
    }
}

/// A group of signed-in admin pages that mounts its own routes.
protocol AdminPageRoutes: Sendable {
    func addRoutes(to group: RouterGroup<AdminRequestContext>)
}
