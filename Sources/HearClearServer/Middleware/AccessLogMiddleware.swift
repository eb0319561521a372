import Hummingbird
import Logging

/// One log line a request: `debug` for success (ingest runs at a thousand a second),
/// `info` for client errors and for 503 (the database away: logged once as the outage, by
/// ``DatabaseOutage``, not once a request), `error` for other server errors.
struct AccessLogMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
        -> Response
    {
        let start = ContinuousClock.now
        let response = try await next(request, context)
        let status = response.status.code
        let level: Logger.Level = status >= 500 && status != 503 ? .error : status >= 400 ? .info : .debug
        context.logger.log(
            level: level, "\(request.method.rawValue) \(LoggedPath.redacted(request.uri.path)) \(status)",
            metadata: ["ms": "\((ContinuousClock.now - start).milliseconds)"]
        )
        return response
    }
}

extension Duration {
    var milliseconds: Double {
        Double(components.seconds) * 1000 + Double(components.attoseconds) / 1e15
    }
}
