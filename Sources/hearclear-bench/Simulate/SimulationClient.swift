import AsyncHTTPClient
import Foundation
import HearClearCLI
import HearClearClient

/// The few HTTP calls of `simulate`, against the public API only, through HearClearClient.
struct SimulationClient: Sendable {
    let httpClient: HTTPClient
    let client: Client
    let endpoint: String

    init(url: String, connections: Int) throws {
        endpoint = url.hasSuffix("/") ? String(url.dropLast()) : url
        guard let serverURL = URL(string: endpoint), serverURL.scheme != nil else {
            throw SimulationError("--url \(url) is not a URL")
        }
        var configuration = HTTPClient.Configuration()
        configuration.connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit = connections
        // Asks for gzip'd answers (Accept-Encoding) and inflates them.
        configuration.decompression = .enabled(limit: .ratio(50))
        httpClient = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
        // Times in UTC: every simulated venue has a time zone, which the server files them by.
        client = Client(
            serverURL: serverURL, httpClient: httpClient, timeZone: TimeZone(secondsFromGMT: 0)!,
            middlewares: [AnswerCapture()])
    }

    func shutdown() async throws {
        try await httpClient.shutdown()
    }

    /// Posts a check-in: `nil` when the server took it (201, or 200 for one it had), else its answer.
    func post(_ checkin: Components.Schemas.CheckinInput) async throws -> String? {
        let (output, answer) = try await AnswerCapture.capture { try await client.postCheckin(body: .json(checkin)) }
        switch output {
        case .created, .ok: return nil
        default:
            let body = String(decoding: (answer?.body ?? Data()).prefix(300), as: UTF8.self)
            return "HTTP \(answer?.status.code ?? 0): \(body)"
        }
    }

    func bands() async throws -> [Components.Schemas.Band] {
        let (output, answer) = try await AnswerCapture.capture { try await client.getBands() }
        guard case .ok(let ok) = output else { throw Self.unexpected("/api/v2/bands", answer) }
        return try ok.body.json.bands
    }

    /// The venue, `nil` for a 404.
    func venue(_ id: String) async throws -> Components.Schemas.Venue? {
        let (output, answer) = try await AnswerCapture.capture { try await client.getVenue(path: .init(venueId: id)) }
        switch output {
        case .ok(let ok): return try ok.body.json
        case .notFound: return nil
        default: throw Self.unexpected("/api/v2/venues/\(id)", answer)
        }
    }

    /// The venue's grid, `nil` for a 404 (no usable data yet).
    func loudness(_ venue: String) async throws -> Components.Schemas.Loudness? {
        let (output, answer) = try await AnswerCapture.capture {
            try await client.getVenueLoudness(path: .init(venueId: venue))
        }
        switch output {
        case .ok(let ok): return try ok.body.json
        case .notFound: return nil
        default: throw Self.unexpected("/api/v2/venues/\(venue)/loudness", answer)
        }
    }

    /// The check-in as judged, `nil` for a 404.
    func checkin(_ id: String) async throws -> Components.Schemas.Checkin? {
        let (output, answer) = try await AnswerCapture.capture { try await client.getCheckin(path: .init(id: id)) }
        switch output {
        case .ok(let ok): return try ok.body.json
        case .notFound: return nil
        default: throw Self.unexpected("/api/v2/checkins/\(id)", answer)
        }
    }

    private static func unexpected(_ path: String, _ answer: AnswerCapture.Answer?) -> SimulationError {
        SimulationError("GET \(path) answered \(answer.map { String($0.status.code) } ?? "nothing")")
    }
}

struct SimulationError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
