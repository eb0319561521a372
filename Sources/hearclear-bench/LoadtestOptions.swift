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

    /// Runs `body` with an HTTP client of `connections` kept-alive connections (default: one per
    /// client and one to spare), decompressing answers up to 64 MiB unless told otherwise, and
    /// shuts the client down however it ends.
    func withHTTPClient<T>(
        connections: Int? = nil, decompression: HTTPClient.Decompression = .enabled(limit: .size(64 << 20)),
        _ body: (HTTPClient) async throws -> T
    ) async throws -> T {
        var configuration = HTTPClient.Configuration()
        configuration.connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit = connections ?? clients + 1
        configuration.decompression = decompression
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

/// What the load tests print, and the venue prefix they share.
enum LoadtestOutput {
    /// A progress line: to standard output, or to standard error under `--json` (standard output
    /// then holds only the report).
    static func note(_ line: String, json: Bool) {
        if json { FileHandle.standardError.write(Data((line + "\n").utf8)) } else { Swift.print(line) }
    }

    /// The report: as one JSON object (sorted keys) under `--json`, else as `text`.
    static func print(_ report: some Encodable, text: @autoclosure () -> String, json: Bool) throws {
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            Swift.print(String(decoding: try encoder.encode(report), as: UTF8.self))
        } else {
            Swift.print(text())
        }
    }

    /// `--prefix`: at most 100 characters a venue id may hold.
    static func validate(prefix: String) throws {
        guard prefix.utf8.count <= 100, prefix.unicodeScalars.allSatisfy(ReadLoadtest.venueIDCharacters.contains) else {
            throw ValidationError("--prefix must be at most 100 characters of A–Z a–z 0–9 . _ ~ : -")
        }
    }
}
