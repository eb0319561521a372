import Foundation
import Hummingbird

/// Guards every `/farmer` route but the login form: without a live session the answer is a
/// redirect to `/farmer`; a POST must carry the session's CSRF token in its `csrf` field, else 403.
struct AdminSessionMiddleware: RouterMiddleware {
    typealias Context = AdminRequestContext

    let sessions: AdminSessionStore

    func handle(
        _ request: Request, context: AdminRequestContext,
        next: (Request, AdminRequestContext) async throws -> Response
    ) async throws -> Response {
        guard let session = try await sessions.session(for: request) else {
            return AdminRenderer.redirect(to: Self.loginLocation(returningTo: request))
        }
        var context = context
        context.session = session
        if request.method == .post {
            let form = try await FormFields.from(request)
            guard let token = form["csrf"], AdminSessionStore.constantTimeEquals(token, session.csrfToken) else {
                throw HTTPError(
                    .forbidden, message: "The form's security token is missing or stale. Reload the page and try again."
                )
            }
            context.form = form
        }
        return try await next(request, context)
    }

    /// `/farmer`, with `next` set to the page asked for when it was a page (GET).
    static func loginLocation(returningTo request: Request) -> String {
        guard request.method == .get || request.method == .head else { return "/farmer" }
        let path = request.uri.path
        guard AdminLoginPage.isSafeReturnPath(path) else { return "/farmer" }
        var target = path
        if let query = request.uri.query, !query.isEmpty { target += "?" + query }
        return "/farmer?next=" + AdminFormat.queryValue(target)
    }
}
