import ArgumentParser
import AsyncHTTPClient
import Foundation

/// What every `loadtest` takes: the server, how many clients, for how long.
struct LoadtestOptions: ParsableArguments {
    @Option(help: "Base URL of the server, e.g. http://127.0.0.1:8080")
    var url: String

    @Option(help: "Concurrent clients.")
    var clients = 16

    @Option(help: "Seconds to run.")
    var duration = 20

    func validate() throws {
        guard let parsed = URL(string: url), parsed.scheme == "http" || parsed.scheme == "https", parsed.host != nil
        else { throw ValidationError("--url must be an http:// or https:// base URL, e.g. http://127.0.0.1:8080") }
        guard clients > 0, clients <= 1024 else { throw ValidationError("--clients must be 1…1024") }
        guard duration > 0, duration <= 3600 else { throw ValidationError("--duration must be 1…3600 seconds") }
    }

    /// The base URL without a trailing slash.
    var endpoint: String { url.hasSuffix("/") ? String(url.dropLast()) : url }

    /// Runs `body` with an HTTP client of one kept-alive connection per client (and one to
    /// spare), decompressing answers up to 64 MiB, and shuts the client down however it ends.
    func withHTTPClient<T>(_ body: (HTTPClient) async throws -> T) async throws -> T {
        var configuration = HTTPClient.Configuration()
        configuration.connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit = clients + 1
        configuration.decompression = .enabled(limit: .size(64 << 20))
        let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
        do {
            let result = try await body(client)
            try await client.shutdown()
            return result
        } catch {
            try? await client.shutdown()
            throw error
        }
    }
}
