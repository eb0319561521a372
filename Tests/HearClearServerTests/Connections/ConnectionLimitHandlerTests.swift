import HTTPTypes
import HearClearModel
import Logging
import NIOCore
import NIOEmbedded
import NIOHTTP1
import NIOHTTPTypes
import NIOHTTPTypesHTTP1
import Testing

@testable import HearClearServer

/// The connection limits' handlers in the pipeline a server gives them (before and behind the
/// HTTP/1.1 decoder), on an `EmbeddedEventLoop` whose clock the test moves: each limit closes the
/// connection at the moment it runs out and not a nanosecond before, whatever the machine's
/// speed (docs/ARCHITECTURE.md, "Connections and time limits"). `SlowClientTests` shows the
/// same handlers wired into the live server.
@Suite("Connection limits on a test clock")
struct ConnectionLimitHandlerTests {
    static var limits: ConnectionLimits {
        var limits = ConnectionLimits()
        limits.headTimeout = .seconds(10)
        limits.bodyTimeout = .seconds(30)
        limits.idleTimeout = .seconds(60)
        limits.bodyMinimumRate = 64
        return limits
    }

    /// Answers `200` with an empty body once a request has arrived whole.
    final class Answerer: ChannelInboundHandler {
        typealias InboundIn = HTTPRequestPart
        typealias OutboundOut = HTTPResponsePart
        private(set) var answered = 0

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            guard case .end = unwrapInboundIn(data) else { return }
            answered += 1
            context.write(
                wrapOutboundOut(.head(HTTPResponse(status: .ok, headerFields: [.contentLength: "0"]))), promise: nil)
            context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
        }
    }

    /// One connection: the deadline handler, the HTTP/1.1 codec, the progress handler, and an answerer.
    struct Connection {
        let channel: EmbeddedChannel
        let deadlines: ConnectionDeadlineHandler
        let answerer: Answerer

        init(limits: ConnectionLimits = ConnectionLimitHandlerTests.limits) throws {
            channel = EmbeddedChannel()
            deadlines = ConnectionDeadlineHandler(
                limits: limits, connectedAt: channel.eventLoop.now, logger: Logger(label: "test"))
            answerer = Answerer()
            let pipeline = channel.pipeline.syncOperations
            try pipeline.addHandler(deadlines)
            try pipeline.addHandler(ByteToMessageHandler(HTTPRequestDecoder(leftOverBytesStrategy: .forwardBytes)))
            try pipeline.addHandler(HTTPResponseEncoder())
            try pipeline.addHandler(HTTP1ToHTTPServerCodec(secure: false))
            try pipeline.addHandler(RequestProgressHandler(deadlines: deadlines))
            try pipeline.addHandler(answerer)
            try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 40_000)).wait()
        }

        var isOpen: Bool { channel.isActive }

        func send(_ text: String) throws {
            try channel.writeInbound(ByteBuffer(string: text))
        }

        func wait(_ duration: Duration) {
            channel.embeddedEventLoop.advanceTime(by: .init(duration))
        }
    }

    static let head =
        "POST /api/v2/checkins HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 1024\r\n\r\n"

    @Test("a silent connection is closed by the idle limit when it runs out, not before")
    func silent() throws {
        let connection = try Connection()
        connection.wait(.seconds(60) - .nanoseconds(1))
        #expect(connection.isOpen)
        connection.wait(.nanoseconds(1))
        #expect(!connection.isOpen)
        #expect(connection.deadlines.closedFor == .idle)
    }

    @Test("part of a head is closed by the head limit, counted from its first byte")
    func partialHead() throws {
        let connection = try Connection()
        connection.wait(.seconds(5))
        try connection.send("POST /api/v2/checkins HTTP/1.1\r\nHost: loc")
        connection.wait(.seconds(9))
        try connection.send("alhost\r\n")  // more of the same head does not restart its clock
        connection.wait(.seconds(1) - .nanoseconds(1))
        #expect(connection.isOpen)
        connection.wait(.nanoseconds(1))
        #expect(!connection.isOpen)
        #expect(connection.deadlines.closedFor == .head)
    }

    @Test("a stalled body is closed by the body limit, counted from its last byte")
    func stalledBody() throws {
        let connection = try Connection()
        try connection.send(Self.head + "{")
        connection.wait(.seconds(30) - .nanoseconds(1))
        #expect(connection.isOpen)
        connection.wait(.nanoseconds(1))
        #expect(!connection.isOpen)
        #expect(connection.deadlines.closedFor == .body)
        #expect(connection.answerer.answered == 0)
    }

    @Test("an upload slower than the body limit but above the minimum rate is not cut off, and is answered")
    func steadyUpload() throws {
        // 1,024 bytes at 64 bytes a second: 16 s, and each 64 bytes earn a second past the body
        // limit (here 3 s), so the upload outlasts the limit without being cut.
        var limits = Self.limits
        limits.bodyTimeout = .seconds(3)
        let connection = try Connection(limits: limits)
        try connection.send(Self.head)
        for _ in 0..<16 {
            connection.wait(.seconds(1))
            #expect(connection.isOpen)
            try connection.send(String(repeating: " ", count: 64))
        }

        #expect(connection.isOpen)
        #expect(connection.answerer.answered == 1)
        #expect(connection.deadlines.closedFor == nil)
    }

    @Test("one byte a second earns almost nothing: the body limit still closes it")
    func tricklingBody() throws {
        let connection = try Connection()
        try connection.send(Self.head)
        for _ in 0..<29 {
            connection.wait(.seconds(1))
            try connection.send(" ")
        }
        // 30 s of body limit plus 29 bytes at 64 B/s (0.45 s): open at 30 s, closed by 31 s,
        // although its last byte came only a second ago.
        connection.wait(.seconds(1))
        #expect(connection.isOpen)
        connection.wait(.seconds(1))
        #expect(!connection.isOpen)
        #expect(connection.deadlines.closedFor == .body)
    }

    @Test("after an answer, an idle connection is closed by the idle limit counted from the answer")
    func keptAlive() throws {
        let connection = try Connection()
        connection.wait(.seconds(50))
        try connection.send("GET /health HTTP/1.1\r\nHost: localhost\r\n\r\n")
        #expect(connection.answerer.answered == 1)
        connection.wait(.seconds(60) - .nanoseconds(1))
        #expect(connection.isOpen, "the idle limit starts again at the answer's end")
        connection.wait(.nanoseconds(1))
        #expect(!connection.isOpen)
        #expect(connection.deadlines.closedFor == .idle)
    }

    @Test("past the cap a connection is answered 503 with Retry-After at once and closed after the linger time")
    func turnedAway() throws {
        let channel = EmbeddedChannel()
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 40_001)).wait()
        try channel.pipeline.syncOperations.addHandler(TurnAwayHandler())

        let answer = try #require(try channel.readOutbound(as: ByteBuffer.self))
        #expect(String(buffer: answer).hasPrefix("HTTP/1.1 503 Service Unavailable\r\n"))
        #expect(String(buffer: answer).contains("Retry-After: \(ConnectionLimits.retryAfterSeconds)\r\n"))
        // (An embedded channel closes whole on the handler's close of its sending side; on a
        // socket the client reads the answer first. Either way it is gone by the linger time.)
        channel.embeddedEventLoop.advanceTime(by: TurnAwayHandler.lingerTime)
        #expect(!channel.isActive)
    }
}
