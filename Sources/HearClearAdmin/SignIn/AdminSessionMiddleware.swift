import Foundation
import HearClearHTTP
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
            let form: FormFields
            if MultipartForm.isMultipart(request.headers[.contentType]) {
                let multipart = try await Self.multipart(request)
                form = FormFields(fields: multipart.fields)
                context.multipart = multipart
            } else {
                form = try await FormFields.from(request)
            }
            guard let token = form["csrf"], AdminSessionStore.constantTimeEquals(token, session.csrfToken) else {
                throw HTTPError(
                    .forbidden, message: "The form's security token is missing or stale. Reload the page and try again."
                )
            }
            context.form = form
        }
        return try await next(request, context)
    }

    /// An upload's parts (the CSRF token is one of them). A body that is not well-formed
    /// multipart is a 400 page: browsers never send one, so it is a broken client or a probe.
    static func multipart(_ request: Request) async throws -> MultipartForm {
        // BodyLimitMiddleware has already collected the body within the path's limit.
        let buffer = try await request.body.collect(upTo: BodyLimits.meterBytes)
        do {
            return try MultipartForm(contentType: request.headers[.contentType], body: Data(buffer: buffer))
        } catch {
            throw HTTPError(
                .badRequest, message: "The upload could not be read: \(error). Reload the page and send it again.")
        }
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
