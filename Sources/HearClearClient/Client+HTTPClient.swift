import AsyncHTTPClient
import Foundation
import OpenAPIAsyncHTTPClient
import OpenAPIRuntime

extension Client {
    /// A client of the HearClear server at `serverURL` (e.g. `http://127.0.0.1:8080`; a path is
    /// kept, a trailing `/` dropped), whose requests go through `httpClient`, each within a minute.
    ///
    /// Bodies are compact JSON (a check-in of 3,600 samples stays far below the server's 1 MiB).
    /// Dates are RFC 3339 (``RFC3339DateTranscoder``), written at the offsets of `timeZone`: the
    /// server takes a check-in's local hours from them when its venue has no time zone, so a phone
    /// keeps its own zone, the default.
    public init(
        serverURL: URL, httpClient: HTTPClient = .shared, timeZone: TimeZone = .current,
        middlewares: [any ClientMiddleware] = []
    ) {
        var serverURL = serverURL
        let text = serverURL.absoluteString
        if text.hasSuffix("/"), let trimmed = URL(string: String(text.dropLast())) { serverURL = trimmed }
        self.init(
            serverURL: serverURL,
            configuration: Configuration(dateTranscoder: .rfc3339(timeZone: timeZone), jsonEncodingOptions: []),
            transport: AsyncHTTPClientTransport(configuration: .init(client: httpClient)), middlewares: middlewares)
    }
}
