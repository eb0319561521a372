import HearClearHTTP
import Logging
import NIOCore
import NIOHTTPTypes

/// The clock of one connection: which limit of ``ConnectionLimits`` runs and when it runs out.
/// A value type fed with the moments things happen, so it can be tested without sockets.
///
/// * Before a head: the head limit from the first byte of the request; with no byte yet and no
///   answer pending, the idle limit from the connection's start or the end of the last answer.
///   (A new connection counts as idle, not as a head begun: clients open connections ahead of
///   their requests, and Hummingbird's test client holds one from the start of a test.)
/// * Reading a body: the body limit from the head, stretched by the bytes received at the minimum
///   rate, and never more than the body limit since the last byte.
/// * Request read, answer pending: nothing runs; the time is the server's, not the client's.
/// * Whenever the client does not take what is sent (the socket stays unwritable): the body
///   limit from then.
struct ConnectionDeadlines {
    enum Limit: String, Sendable {
        case head, body, idle, send
    }

    private enum Reading {
        /// Waiting for a head; `since`: when its first byte came.
        case head(since: NIODeadline?)
        case body(since: NIODeadline, lastByte: NIODeadline, bytes: Int)
    }

    let limits: ConnectionLimits
    private var reading: Reading
    /// Requests whose head was read and whose answer has not ended.
    private var pendingAnswers = 0
    private var idleSince: NIODeadline
    private var unwritableSince: NIODeadline?

    init(limits: ConnectionLimits, connectedAt: NIODeadline) {
        self.limits = limits
        self.reading = .head(since: nil)
        self.idleSince = connectedAt
    }

    /// True when they begin a head: its limit starts.
    @discardableResult
    mutating func bytesArrived(at now: NIODeadline) -> Bool {
        guard case .head(since: nil) = reading else { return false }
        reading = .head(since: now)
        return true
    }

    mutating func headArrived(at now: NIODeadline) {
        pendingAnswers += 1
        reading = .body(since: now, lastByte: now, bytes: 0)
    }

    mutating func bodyArrived(_ count: Int, at now: NIODeadline) {
        if case .body(let since, _, let bytes) = reading {
            reading = .body(since: since, lastByte: now, bytes: bytes &+ count)
        }
    }

    mutating func requestEnded(at now: NIODeadline) {
        reading = .head(since: nil)
    }

    mutating func answerEnded(at now: NIODeadline) {
        pendingAnswers = max(0, pendingAnswers - 1)
        guard pendingAnswers == 0 else { return }
        idleSince = now
        // A next head begun while the answer was pending gets its full time from now.
        if case .head(since: .some) = reading { reading = .head(since: now) }
    }

    mutating func writabilityChanged(isWritable: Bool, at now: NIODeadline) {
        unwritableSince = isWritable ? nil : (unwritableSince ?? now)
    }

    /// When the connection is to be closed if nothing happens before, and for which limit.
    var deadline: (at: NIODeadline, limit: Limit)? {
        var earliest: (at: NIODeadline, limit: Limit)?
        func consider(_ at: NIODeadline, _ limit: Limit) {
            if earliest.map({ at < $0.at }) ?? true { earliest = (at, limit) }
        }
        if let unwritableSince { consider(unwritableSince + TimeAmount(limits.bodyTimeout), .send) }
        switch reading {
        case .head(let since?) where pendingAnswers == 0:
            consider(since + TimeAmount(limits.headTimeout), .head)
        case .head(nil) where pendingAnswers == 0:
            consider(idleSince + TimeAmount(limits.idleTimeout), .idle)
        case .head:
            break
        case .body(let since, let lastByte, let bytes):
            let body = TimeAmount(limits.bodyTimeout)
            consider(min(lastByte + body, since + body + Self.allowance(bytes, rate: limits.bodyMinimumRate)), .body)
        }
        return earliest
    }

    /// The time `bytes` earn at `rate` bytes a second (at most a day).
    static func allowance(_ bytes: Int, rate: Int) -> TimeAmount {
        guard rate > 0 else { return .zero }
        let seconds = min(Double(bytes) / Double(rate), 86_400)
        return .nanoseconds(Int64(seconds * 1e9))
    }
}

/// First in a connection's pipeline, before the HTTP decoder: sees the bytes arrive, keeps the
/// connection's ``ConnectionDeadlines`` and closes the connection when one runs out. One timer at
/// a time, set for the earliest deadline; a later deadline leaves it as it is, and the timer sets
/// itself again when it fires early.
///
/// Not `Sendable`: it lives on its channel's event loop, like every `ChannelHandler`.
final class ConnectionDeadlineHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    private var deadlines: ConnectionDeadlines
    private let logger: Logger
    private var context: ChannelHandlerContext?
    private var timer: (at: NIODeadline, task: Scheduled<Void>)?
    /// The limit that ran out, once this handler has closed the connection.
    private(set) var closedFor: ConnectionDeadlines.Limit?

    init(limits: ConnectionLimits, connectedAt: NIODeadline, logger: Logger) {
        self.deadlines = ConnectionDeadlines(limits: limits, connectedAt: connectedAt)
        self.logger = logger
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
        update()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        stop()
        self.context = nil
    }

    func channelInactive(context: ChannelHandlerContext) {
        stop()
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if deadlines.bytesArrived(at: context.eventLoop.now) { update() }
        context.fireChannelRead(data)
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        deadlines.writabilityChanged(isWritable: context.channel.isWritable, at: context.eventLoop.now)
        update()
        context.fireChannelWritabilityChanged()
    }

    // Called by ``RequestProgressHandler``, behind the decoder, on the same event loop.

    func headArrived() {
        deadlines.headArrived(at: now)
        update()
    }

    func bodyArrived(_ count: Int) {
        deadlines.bodyArrived(count, at: now)
    }

    func requestEnded() {
        deadlines.requestEnded(at: now)
        update()
    }

    func answerEnded() {
        deadlines.answerEnded(at: now)
        update()
    }

    /// The event loop's clock: real time on a server, a clock the test moves on an
    /// `EmbeddedEventLoop` (so the limits can be tested without waiting for them).
    private var now: NIODeadline { context?.eventLoop.now ?? .now() }

    /// Sets the timer for the earliest deadline if none is set before it.
    private func update() {
        guard let context else { return }
        guard let next = deadlines.deadline else { return }
        if let timer {
            if timer.at <= next.at { return }
            timer.task.cancel()
        }
        let task = context.eventLoop.assumeIsolated().scheduleTask(deadline: next.at) { [self] in
            self.timer = nil
            self.fire()
        }
        timer = (next.at, task)
    }

    private func fire() {
        guard let context, let next = deadlines.deadline else { return }
        guard next.at <= now else { return update() }
        closedFor = next.limit
        ConnectionMetrics.timedOut(next.limit).increment()
        logger.debug(
            "connection closed: out of time",
            metadata: [
                "limit": "\(next.limit.rawValue)",
                "peer": "\(context.channel.remoteAddress.map(Self.describe) ?? "unknown")",
            ])
        context.close(promise: nil)
    }

    /// `address:port` of the client, as the log names it.
    static func describe(_ address: SocketAddress) -> String {
        "\(address.ipAddress ?? "?"):\(address.port ?? 0)"
    }

    private func stop() {
        timer?.task.cancel()
        timer = nil
    }
}

@available(*, unavailable)
extension ConnectionDeadlineHandler: Sendable {}

/// Behind the HTTP decoder: tells the connection's ``ConnectionDeadlineHandler`` when a head, body
/// and end arrive and when an answer ends. Passes everything on unchanged but one error: when the
/// body limit closed the connection, the decoder's "stream ended at an unexpected time" becomes a
/// 408 ``Problem``, so that the route reading the body stops with a client error (logged at
/// `info` by the access log) rather than an unknown error (logged at `error`, a 500), once a
/// connection cut off.
final class RequestProgressHandler: ChannelDuplexHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    private let deadlines: ConnectionDeadlineHandler

    init(deadlines: ConnectionDeadlineHandler) {
        self.deadlines = deadlines
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head: deadlines.headArrived()
        case .body(let bytes): deadlines.bodyArrived(bytes.readableBytes)
        case .end: deadlines.requestEnded()
        }
        context.fireChannelRead(data)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        guard deadlines.closedFor == .body else { return context.fireErrorCaught(error) }
        context.fireErrorCaught(
            Problem(
                .requestTimeout, type: "timeout", title: "Request timeout",
                detail: "the body did not arrive within the time limit; the connection was closed"))
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .end = unwrapOutboundIn(data) { deadlines.answerEnded() }
        context.write(data, promise: promise)
    }
}

@available(*, unavailable)
extension RequestProgressHandler: Sendable {}
