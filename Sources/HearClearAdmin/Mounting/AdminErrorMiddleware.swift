import Foundation
import Hummingbird
import Logging

/// Errors on `/farmer` become HTML pages: the status and a sentence written for admins. Anything
/// that is not an HTTP error is logged and shown as a bare 500 with the request id, never its text.
struct AdminErrorMiddleware: RouterMiddleware {
    typealias Context = AdminRequestContext

    let renderer: AdminRenderer

    func handle(
        _ request: Request, context: AdminRequestContext,
        next: (Request, AdminRequestContext) async throws -> Response
    ) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as HTTPError {
            let message = error.body ?? Self.sentence(for: error.status)
            return renderer.page(
                "error", AdminErrorPage(status: error.status, message: message),
                status: error.status
            )
        } catch {
            context.logger.error(
                "admin request failed",
                metadata: ["error": "\(String(reflecting: error))", "path": "\(request.uri.path)"]
            )
            let message = "Something went wrong on the server. It is logged with request id \(context.id)."
            return renderer.page(
                "error",
                AdminErrorPage(status: .internalServerError, message: message),
                status: .internalServerError
            )
        }
    }

    static func sentence(for status: HTTPResponse.Status) -> String {
        switch status {
        case .notFound: "There is nothing at this address."
        case .forbidden: "This action was refused."
        case .badRequest: "The request was not understood."
        default: status.reasonPhrase
        }
    }
}

/// The context of `error.mustache`.
struct AdminErrorPage {
    let title: String
    let code: Int
    let message: String

    init(status: HTTPResponse.Status, message: String) {
        title = "\(status.code) \(status.reasonPhrase)"
        code = status.code
        self.message = message
    }
}
