import HearClearEngine
import HearClearHTTP
import Hummingbird

/// While the database is known to be away (``DatabaseOutage``), a request that needs it is
/// answered 503 at once (by ``ErrorMiddleware``) instead of waiting for the connection pool,
/// which would keep it for about a minute before giving up. The outage is known from a failed
/// request or worker poll, and its end from the worker's next poll, `/ready` or a listener
/// listening again (each within seconds). What needs no database still answers.
struct DatabaseGateMiddleware: RouterMiddleware {
    typealias Context = AppRequestContext
    let outage: DatabaseOutage

    /// Paths answered without the database (`/ready` checks it, and so tells its return).
    static let withoutDatabase: Set<String> = [
        "/health", "/ready", "/metrics", "/api/v2/openapi.yaml", "/api/v2/meter", "/api/v2/calibrations/tone",
    ]

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
        -> Response
    {
        if outage.isDown, !Self.withoutDatabase.contains(request.uri.path) { throw DatabaseUnavailable() }
        return try await next(request, context)
    }
}
