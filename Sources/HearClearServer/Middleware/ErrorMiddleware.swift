import Foundation
import HTTPTypes
import HearClearEngine
import HearClearHTTP
import Hummingbird
import Logging

/// Turns every error into a response: a problem document on v2 and elsewhere, the legacy
/// `{"result", "message"}` body on v1. A wrong method on a known path is 405 with `Allow`.
/// A database outage (``DatabaseOutage/isOutage(_:)``) is a 503 with `Retry-After`, logged once
/// for the whole outage, not once a request. Other errors that are not HTTP errors are logged
/// at `error` and answered with a bare 500: no stack trace or internal message reaches the
/// client.
struct ErrorMiddleware<Context: RequestContext>: RouterMiddleware {
    let routes: RouteIndex
    let outage: DatabaseOutage

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
        -> Response
    {
        let legacy = request.uri.path.hasPrefix("/api/v1/")
        do {
            return try await next(request, context)
        } catch let problem as Problem {
            return try answer(problem, to: request, context: context, legacy: legacy)
        } catch let error as HTTPError {
            // Hummingbird marks an unmatched route with the endpoint path "NotFound".
            if error.status == .notFound, context.endpointPath == nil || context.endpointPath == "NotFound" {
                return try routeNotFound(request, context: context, legacy: legacy)
            }
            let message = error.body ?? error.status.reasonPhrase
            if legacy { return LegacyResponse.error(error.status, message) }
            return try Problem(
                error.status, type: "http-\(error.status.code)", title: error.status.reasonPhrase, detail: error.body
            )
            .response(from: request, context: context)
        } catch  where DatabaseOutage.isOutage(error) {
            outage.failed(error, logger: context.logger)
            return try answer(.unavailable, to: request, context: context, legacy: legacy)
        } catch {
            context.logger.error(
                "request failed",
                metadata: ["error": "\(String(reflecting: error))", "path": "\(LoggedPath.redacted(request.uri.path))"]
            )
            if legacy { return LegacyResponse.error(.internalServerError, "internal error") }
            return try Problem(
                .internalServerError, type: "internal", title: "Internal server error",
                detail: "the server could not answer; the error is logged with request id \(context.id)"
            ).response(from: request, context: context)
        }
    }

    /// A problem document, or on v1 the legacy error body with the problem's headers (e.g. a
    /// 429's or 503's `Retry-After`).
    private func answer(_ problem: Problem, to request: Request, context: Context, legacy: Bool) throws -> Response {
        guard legacy else { return try problem.response(from: request, context: context) }
        var response = LegacyResponse.error(problem.status, problem.detail ?? problem.title)
        for field in problem.headers { response.headers.append(field) }
        return response
    }

    private func routeNotFound(_ request: Request, context: Context, legacy: Bool) throws -> Response {
        let allowed = routes.allowedMethods(for: request.uri.path)
        if !allowed.isEmpty {
            var names = Set(allowed.map(\.rawValue))
            if names.contains("GET") { names.insert("HEAD") }
            let allow = names.sorted().joined(separator: ", ")
            if legacy {
                var response = LegacyResponse.error(.methodNotAllowed, "method not allowed")
                response.headers[.allow] = allow
                return response
            }
            return try Problem(
                .methodNotAllowed, type: "method-not-allowed", title: "Method not allowed",
                detail: "\(request.method.rawValue) is not allowed on \(request.uri.path); use \(allow)",
                headers: [.allow: allow]
            ).response(from: request, context: context)
        }
        if legacy { return LegacyResponse.notFound() }
        return try Problem.notFound("nothing at \(request.uri.path)").response(from: request, context: context)
    }
}
