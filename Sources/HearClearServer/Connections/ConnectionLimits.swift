import Configuration
import HearClearEngine
import HearClearModel
import Hummingbird
import HummingbirdCore
import Logging
import Metrics
import NIOCore
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// How long a client may take and how many may be connected at once (docs/ARCHITECTURE.md,
/// "Connections and time limits"). A connection that runs out of time is closed.
public struct ConnectionLimits: Sendable, Equatable {
    /// From a request's first byte until its head (request line and headers) has arrived.
    public var headTimeout: Duration = .seconds(ServerSettings.httpHeadTimeout.defaultDouble)
    /// From the head until the body's end; also the longest pause between two pieces of body,
    /// and the longest the server waits for a client that does not read its answer.
    public var bodyTimeout: Duration = .seconds(ServerSettings.httpBodyTimeout.defaultDouble)
    /// Each byte of body received adds `1 / bodyMinimumRate` seconds to ``bodyTimeout``, so that an
    /// upload at least this fast (bytes a second) is never cut off, however large; 0: the whole
    /// body within ``bodyTimeout``.
    public var bodyMinimumRate = ServerSettings.httpBodyMinRate.defaultInt
    /// A connection with no request begun: from its start, or from the end of the last answer.
    public var idleTimeout: Duration = .seconds(ServerSettings.httpIdleTimeout.defaultDouble)
    /// Connections served at once; past it, a connection is answered 503 with `Retry-After` and
    /// closed. Lowered at start to what the process's descriptor limit allows (``effectiveMaxConnections(databaseConnections:logger:)``).
    public var maxConnections = ServerSettings.httpMaxConnections.defaultInt

    public init() {}

    /// Reads `hearclear.http.head.timeout`, `.body.timeout`, `.idle.timeout` (seconds, fractions
    /// allowed), `hearclear.http.body.min.rate` (bytes a second) and `hearclear.http.max.connections`.
    public init(reader: ConfigReader) throws {
        self.init()
        func seconds(_ setting: Setting) throws -> Duration {
            let key = setting.key
            let read = reader.double(setting)
            guard read > 0, read <= 86_400 else {
                throw ConfigurationError.invalid("\(key) must be more than 0 and at most 86400 seconds, not \(read)")
            }
            return .milliseconds(max(1, Int64((read * 1000).rounded())))
        }
        headTimeout = try seconds(ServerSettings.httpHeadTimeout)
        bodyTimeout = try seconds(ServerSettings.httpBodyTimeout)
        idleTimeout = try seconds(ServerSettings.httpIdleTimeout)
        bodyMinimumRate = reader.int(ServerSettings.httpBodyMinRate)
        maxConnections = reader.int(ServerSettings.httpMaxConnections)
        guard bodyMinimumRate >= 0 else {
            throw ConfigurationError.invalid(
                "the body's minimum rate must be ≥ 0 bytes a second, not \(bodyMinimumRate)")
        }
        guard (1...1_000_000).contains(maxConnections) else {
            throw ConfigurationError.invalid("max connections must be between 1 and 1000000, not \(maxConnections)")
        }
    }

    /// Connections past ``maxConnections`` that may be open at once while they are being turned
    /// away; past them the server stops accepting and new connections wait in the listen backlog.
    static let turnAwayHeadroom = 64

    /// `Retry-After` (seconds) of the 503 at the cap.
    static let retryAfterSeconds = 5

    /// Descriptors kept for everything but the client connections: the database pools (two per
    /// connection: the primary and a replica), the embedded PostgreSQL's pipes, log and data files,
    /// the event loops, and the connections being turned away.
    static func reservedDescriptors(databaseConnections: Int) -> Int {
        128 + turnAwayHeadroom + 2 * databaseConnections
    }

    /// The cap in force: ``maxConnections``, or fewer if the process's open-file limit
    /// (`ulimit -n`) is too low for it and the reserve. The soft limit is first raised towards
    /// the hard one as far as needed. Logged when lowered.
    public func effectiveMaxConnections(databaseConnections: Int, logger: Logger) -> Int {
        let reserve = Self.reservedDescriptors(databaseConnections: databaseConnections)
        guard let limit = Self.openFileLimit(raisingTo: maxConnections + reserve) else { return maxConnections }
        let allowed = Self.cap(maxConnections, openFileLimit: limit, reserve: reserve)
        if allowed < maxConnections {
            logger.warning(
                "open-file limit too low for the connection cap; lowered",
                metadata: [
                    "maxConnections": "\(maxConnections)", "openFileLimit": "\(limit)", "reserve": "\(reserve)",
                    "cap": "\(allowed)",
                ])
        }
        return allowed
    }

    /// Hummingbird's own gate on the listening socket: it stops accepting while `cap` plus the
    /// turned-away headroom are open, so descriptors stay bounded however fast connections come.
    static func acceptance(cap: Int, logger: Logger) -> any AvailableConnectionsDelegate {
        MaximumAvailableConnections(cap + turnAwayHeadroom, logger: logger)
    }

    static func cap(_ maxConnections: Int, openFileLimit: Int, reserve: Int) -> Int {
        max(1, min(maxConnections, openFileLimit - reserve))
    }

    /// The soft `RLIMIT_NOFILE`, raised first to `wanted` (at most the hard limit) if lower; nil
    /// when it cannot be read or is unlimited.
    static func openFileLimit(raisingTo wanted: Int) -> Int? {
        var limit = rlimit()
        #if os(Linux)
            let resource = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)
            let infinity = rlim_t.max  // RLIM_INFINITY, ~0, is not imported
        #else
            let resource = RLIMIT_NOFILE
            let infinity = RLIM_INFINITY
        #endif
        guard getrlimit(resource, &limit) == 0 else { return nil }
        if limit.rlim_cur == infinity { return nil }
        if limit.rlim_cur < rlim_t(wanted) {
            var raised = limit
            raised.rlim_cur = limit.rlim_max == infinity ? rlim_t(wanted) : min(rlim_t(wanted), limit.rlim_max)
            // Refused (macOS above OPEN_MAX, say): keep the soft limit there is.
            if setrlimit(resource, &raised) == 0 { limit = raised }
        }
        return Int(clamping: limit.rlim_cur)
    }
}

/// Counts the connections being served, for the cap. Shared by every event loop.
final class ConnectionGate: Sendable {
    let maxConnections: Int
    private let open = Atomic<Int>(0)

    init(maxConnections: Int) {
        self.maxConnections = maxConnections
    }

    /// Takes a place if one is free.
    func admit() -> Bool {
        var current = open.load(ordering: .relaxed)
        while current < maxConnections {
            let (exchanged, original) = open.compareExchange(
                expected: current, desired: current + 1, ordering: .relaxed)
            if exchanged {
                ConnectionMetrics.open.increment()
                return true
            }
            current = original
        }
        ConnectionMetrics.turnedAway.increment()
        return false
    }

    func release() {
        open.subtract(1, ordering: .relaxed)
        ConnectionMetrics.open.decrement()
    }

    var openConnections: Int { open.load(ordering: .relaxed) }
}

enum ConnectionMetrics {
    static let open = Meter(label: "hearclear_connections_open")
    static let turnedAway = Counter(label: "hearclear_connections_turned_away_total")
    static func timedOut(_ limit: ConnectionDeadlines.Limit) -> Counter {
        Counter(label: "hearclear_connections_timed_out_total", dimensions: [("limit", limit.rawValue)])
    }
}

extension HTTPServerBuilder {
    /// HTTP/1.1 with the time limits and the cap of `gate`.
    static func limitedHTTP1(limits: ConnectionLimits, gate: ConnectionGate) -> HTTPServerBuilder {
        .init { responder in
            LimitedHTTP1Channel(http: HTTP1Channel(responder: responder), limits: limits, gate: gate)
        }
    }
}

/// Hummingbird's HTTP/1.1 child channel with a connection clock in front of it
/// (``ConnectionDeadlineHandler`` before the HTTP decoder, ``RequestProgressHandler`` after it),
/// or, past the cap, a ``TurnAwayHandler`` that answers 503 and closes.
struct LimitedHTTP1Channel: ServerChildChannel {
    typealias Value = HTTP1Channel.Value

    let http: HTTP1Channel
    let limits: ConnectionLimits
    let gate: ConnectionGate

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        let connectedAt = channel.eventLoop.now
        let admitted = gate.admit()
        if admitted {
            let gate = self.gate
            channel.closeFuture.whenComplete { _ in gate.release() }
        }
        let limits = self.limits
        return http.setup(channel: channel, logger: logger).flatMapThrowing { value in
            let pipeline = channel.pipeline.syncOperations
            guard admitted else {
                try pipeline.addHandler(TurnAwayHandler(), position: .first)
                return value
            }
            let deadlines = ConnectionDeadlineHandler(limits: limits, connectedAt: connectedAt, logger: logger)
            try pipeline.addHandler(deadlines, position: .first)
            let stateHandler = try pipeline.handler(type: HTTPConnectionStateHandler.self)
            try pipeline.addHandler(RequestProgressHandler(deadlines: deadlines), position: .before(stateHandler))
            return value
        }
    }

    func handle(value: Value, logger: Logger) async {
        await http.handle(value: value, logger: logger)
    }
}

/// Past the cap: answers `503` with `Retry-After` at once, without reading the request, then
/// closes. It closes its sending side first and drops what the client sends, so that the client
/// reads the answer rather than a reset; the connection is closed when the client closes its side,
/// or after ``lingerTime`` at most, so a turned-away connection holds its descriptor briefly.
final class TurnAwayHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    static let lingerTime = TimeAmount.seconds(1)
    static let answer: String = {
        let body =
            #"{"detail":"the server has too many open connections; try again later","#
            + #""status":503,"title":"Service unavailable","type":"https://hearclear.app/problems/unavailable"}"#
        return "HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/problem+json\r\n"
            + "Retry-After: \(ConnectionLimits.retryAfterSeconds)\r\nConnection: close\r\n"
            + "Content-Length: \(body.utf8.count)\r\n\r\n" + body
    }()

    private var answered = false

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { answer(context: context) }
    }

    func channelActive(context: ChannelHandlerContext) {
        answer(context: context)
        context.fireChannelActive()
    }

    private func answer(context: ChannelHandlerContext) {
        guard !answered else { return }
        answered = true
        let written = context.writeAndFlush(wrapOutboundOut(ByteBuffer(string: Self.answer)))
        written.assumeIsolated().whenComplete { _ in
            context.close(mode: .output, promise: nil)
            context.eventLoop.assumeIsolated().scheduleTask(in: Self.lingerTime) {
                context.close(promise: nil)
            }
        }
    }

    /// What the client sends is dropped: nothing behind this handler reads it.
    func channelRead(context: ChannelHandlerContext, data: NIOAny) {}

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if case ChannelEvent.inputClosed = event { context.close(promise: nil) }
        context.fireUserInboundEventTriggered(event)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }
}

@available(*, unavailable)
extension TurnAwayHandler: Sendable {}

extension Duration {
    /// In seconds, with fractions.
    var seconds: Double {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }
}
