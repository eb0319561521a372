import AsyncHTTPClient
import Foundation
import NIOCore

/// The few HTTP calls of `simulate`, against the public API only.
struct SimulationClient: Sendable {
    let client: HTTPClient
    let endpoint: String

    init(url: String, connections: Int) {
        var configuration = HTTPClient.Configuration()
        configuration.connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit = connections
        configuration.decompression = .enabled(limit: .ratio(50))
        client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
        endpoint = url.hasSuffix("/") ? String(url.dropLast()) : url
    }

    enum Method { case get, post }

    func shutdown() async throws {
        try await client.shutdown()
    }

    /// Status code and body of one request.
    func send(_ method: Method, _ path: String, json: Data? = nil) async throws -> (status: Int, body: Data) {
        var request = HTTPClientRequest(url: endpoint + path)
        request.method = method == .get ? .GET : .POST
        request.headers.add(name: "Accept-Encoding", value: "gzip")
        if let json {
            request.headers.add(name: "Content-Type", value: "application/json")
            request.body = .bytes(ByteBuffer(bytes: json))
        }
        let response = try await client.execute(request, timeout: .seconds(60))
        let body = try await response.body.collect(upTo: 16 << 20)
        return (Int(response.status.code), Data(body.readableBytesView))
    }

    /// The body of a 200 answer as a JSON object, `nil` for a 404.
    func object(_ path: String) async throws -> [String: Any]? {
        let (status, body) = try await send(.get, path)
        if status == 404 { return nil }
        guard status == 200 else { throw SimulationError("GET \(path) answered \(status)") }
        return try JSONSerialization.jsonObject(with: body) as? [String: Any]
    }
}

struct SimulationError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
