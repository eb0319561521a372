import Foundation
import HTTPTypes
import HearClearEngine
import HearClearHTTP
import HearClearModel
import HearClearPages
import Hummingbird
import Metrics
import NIOCore

/// Token-bucket rate limits (docs/OPERATIONS.md, "Rate limits"; docs/ARCHITECTURE.md, "Rate limits"): per
/// client address on check-ins, reports, metering and search (``RateLimitMiddleware``), and per
/// device on check-ins and reports (the controllers, once the body says which device). A refusal
/// is a 429 problem `rate-limited` with `Retry-After`, counted in
/// `hearclear_rate_limited_total{limit=…}`.
public final class RateLimiter: Sendable {
    public enum Kind: String, Sendable, CaseIterable {
        case checkinsPerDevice = "checkins_device"
        case checkinsPerAddress = "checkins_address"
        case meteringPerAddress = "metering_address"
        case searchesPerAddress = "searches_address"
        case reportsPerDevice = "reports_device"
        case reportsPerAddress = "reports_address"
        case devicesPerAddress = "devices_address"
    }

    let configuration: RateLimitConfiguration
    private let buckets: [Kind: TokenBuckets]
    private let refusals: [Kind: Counter]
    /// Seconds on a monotonic clock (tests give their own).
    private let now: @Sendable () -> Double

    public init(
        _ configuration: RateLimitConfiguration,
        now: @escaping @Sendable () -> Double = { Double(DispatchTime.now().uptimeNanoseconds) / 1e9 }
    ) {
        self.configuration = configuration
        self.now = now
        buckets = Dictionary(uniqueKeysWithValues: Kind.allCases.map { ($0, TokenBuckets()) })
        refusals = Dictionary(
            uniqueKeysWithValues: Kind.allCases.map {
                ($0, Counter(label: "hearclear_rate_limited_total", dimensions: [("limit", $0.rawValue)]))
            })
    }

    func limit(_ kind: Kind) -> RateLimit {
        switch kind {
        case .checkinsPerDevice: configuration.checkinsPerDevice
        case .checkinsPerAddress: configuration.checkinsPerAddress
        case .meteringPerAddress: configuration.meteringPerAddress
        case .searchesPerAddress: configuration.searchesPerAddress
        case .reportsPerDevice: configuration.reportsPerDevice
        case .reportsPerAddress: configuration.reportsPerAddress
        case .devicesPerAddress: configuration.devicesPerAddress
        }
    }

    /// The client's address: the peer, or, when the peer is a trusted proxy, the last address of
    /// `X-Forwarded-For` that is not one (the ones before it could be forged by the client).
    /// nil without a peer (router tests).
    func clientAddress(peer: String?, forwardedFor: String?) -> String? {
        guard let peer else { return nil }
        guard configuration.trustedProxies.contains(ip: peer), let forwardedFor else { return peer }
        let chain = forwardedFor.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        var client = peer
        for hop in chain.reversed() {
            guard IPNetwork.bytes(hop) != nil else { break }
            client = hop
            if !configuration.trustedProxies.contains(ip: hop) { break }
        }
        return client
    }

    /// Whether a client at `address` is never limited (nil: a router test, also exempt).
    func isExempt(_ address: String?) -> Bool {
        guard let address else { return true }
        return configuration.exempt.contains(ip: address)
    }

    /// Takes a token of `kind` for `key`, or throws the 429 problem.
    func take(_ kind: Kind, key: String) throws {
        guard let wait = buckets[kind]?.take(key, limit: limit(kind), now: now()) else { return }
        refusals[kind]?.increment()
        let seconds = max(1, Int(wait.rounded(.up)))
        throw Problem(
            .tooManyRequests, type: "rate-limited", title: "Too many requests",
            detail: Self.detail(kind, limit: limit(kind), seconds: seconds),
            headers: [.retryAfter: String(seconds)])
    }

    /// Gives back a device's check-in token (a resent check-in, which costs nothing).
    func refund(_ kind: Kind, key: String) {
        buckets[kind]?.refund(key, limit: limit(kind))
    }

    /// Takes the device's check-in token (the client address, which ``RateLimitMiddleware``
    /// found for every check-in route, decides whether it is exempt), then runs `accept`; a
    /// check-in that turns out not to be new (a resend, a conflict) gives the token back. Throws
    /// the 429 problem past the device's limit.
    func admitCheckin(
        device: String, context: AppRequestContext, accept: () async throws -> IngestOutcome
    ) async throws -> IngestOutcome {
        try await admit(.checkinsPerDevice, device: device, context: context, accept: accept) {
            if case .created = $0 { true } else { false }
        }
    }

    /// ``admitCheckin(device:context:accept:)`` for a report of wrong data: a resend or a
    /// conflict, or an unknown venue, gives the device's token back.
    func admitReport(
        device: String, context: AppRequestContext, accept: () async throws -> ReportOutcome
    ) async throws -> ReportOutcome {
        try await admit(.reportsPerDevice, device: device, context: context, accept: accept) {
            if case .created = $0 { true } else { false }
        }
    }

    /// Takes a token of the per-device `kind`, runs `accept`, and gives the token back when
    /// `accept` throws or its outcome is not `isNew`.
    private func admit<Outcome>(
        _ kind: Kind, device: String, context: AppRequestContext, accept: () async throws -> Outcome,
        isNew: (Outcome) -> Bool
    ) async throws -> Outcome {
        guard !isExempt(context.clientAddress) else { return try await accept() }
        try take(kind, key: device)
        let outcome: Outcome
        do {
            outcome = try await accept()
        } catch {
            refund(kind, key: device)
            throw error
        }
        if !isNew(outcome) { refund(kind, key: device) }
        return outcome
    }

    static func detail(_ kind: Kind, limit: RateLimit, seconds: Int) -> String {
        let what =
            switch kind {
            case .checkinsPerDevice: "check-ins from this device"
            case .checkinsPerAddress: "check-ins from this address"
            case .meteringPerAddress: "recordings to measure from this address"
            case .searchesPerAddress: "searches from this address"
            case .reportsPerDevice: "reports from this device"
            case .reportsPerAddress: "reports from this address"
            case .devicesPerAddress: "requests for a device's data or its erasure from this address"
            }
        return "more than \(limit) \(what); try again in \(seconds) s"
    }
}

/// The per-address limits, by route: `POST /api/v2/checkins` and `POST /api/v1/checkin/new`,
/// `POST /api/v2/venues/{venueId}/reports`, `POST /api/v2/meter` and `/api/v2/calibrations/tone`,
/// `GET /api/v2/venues` and a venue's `alternatives` and `similar`, `/api/v2/devices/…` (a
/// device's data and its erasure: an id guessed is an id tried). Before the body is read.
struct RateLimitMiddleware: RouterMiddleware {
    typealias Context = AppRequestContext
    let limiter: RateLimiter

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
        -> Response
    {
        // Kept in the context of every request: the check-in routes limit the device too, by the
        // same client, and the admin's login backoff keys on it.
        var context = context
        context.clientAddress = limiter.clientAddress(
            peer: context.remoteAddress?.ipAddress, forwardedFor: request.headers[.xForwardedFor])
        guard let kind = Self.kind(method: request.method, path: request.uri.path) else {
            return try await next(request, context)
        }
        if let address = context.clientAddress, !limiter.isExempt(address) {
            do {
                try limiter.take(kind, key: address)
            } catch let problem as Problem where !request.uri.path.hasPrefix("/api/") {
                // The pages (HearClearPages) answer people: the refusal as a page, not a problem document.
                return Pages.refusal(
                    status: problem.status, title: problem.title, message: problem.detail ?? problem.title,
                    headers: problem.headers)
            }
        }
        return try await next(request, context)
    }

    static func kind(method: HTTPRequest.Method, path: String) -> RateLimiter.Kind? {
        switch (method, path) {
        case (.post, "/api/v2/checkins"), (.post, "/api/v1/checkin/new"): .checkinsPerAddress
        case (.post, "/api/v2/meter"), (.post, "/api/v2/calibrations/tone"): .meteringPerAddress
        case (.post, _) where path.hasPrefix("/api/v2/venues/") && path.hasSuffix("/reports"): .reportsPerAddress
        // The pages' "this was wrong" form (HearClearPages): the same limit as the API's reports.
        case (.post, _) where path.hasPrefix("/venues/") && path.hasSuffix("/report"): .reportsPerAddress
        case (.get, "/"): .searchesPerAddress
        case (.get, "/api/v2/venues"): .searchesPerAddress
        case (_, _) where path.hasPrefix("/api/v2/devices/"): .devicesPerAddress
        case (.get, _)
        where path.hasPrefix("/api/v2/venues/")
            && (path.hasSuffix("/alternatives") || path.hasSuffix("/similar")):
            .searchesPerAddress
        default: nil
        }
    }
}

extension HTTPField.Name {
    static let xForwardedFor = Self("X-Forwarded-For")!
}
