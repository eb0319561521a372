import Configuration
import Foundation
import HearClearModel
import HearClearServerTestSupport
import HearClearTestSupport
import Hummingbird
import HummingbirdTesting
import InMemoryLogging
import Logging
import NIOCore
import NIOPosix
import Synchronization
import Testing

@testable import HearClearEngine
@testable import HearClearServer

/// Slow and idle clients are cut off, and past the connection cap a client is answered 503
/// (issue 14, part 4; docs/ARCHITECTURE.md, "Connections and time limits"), over real sockets.
/// What these decide by does not depend on the machine's speed: the server's own log names the
/// limit that closed each connection, a connection never closes before its limit (the client's
/// clock starts before the server's), and the other waits only bound a hang. When each limit
/// runs out, to the nanosecond, is shown on a test clock (`ConnectionLimitHandlerTests`).
@Suite("Slow clients and the connection cap")
struct SlowClientTests {
    /// The ways a client can stall, ten connections each.
    enum Stall: String, CaseIterable, Sendable {
        case silent = "connects and sends nothing"
        case partialHead = "sends part of a head"
        case bodyByte = "sends a head and one byte of a 100 kB body"
        case keptAlive = "stays idle after an answer"

        var bytes: String {
            switch self {
            case .silent: ""
            case .partialHead: "POST /api/v2/checkins HTTP/1.1\r\nHost: localhost\r\nContent-Ty"
            case .bodyByte:
                "POST /api/v2/checkins HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
                    + "Content-Length: 100000\r\n\r\n{"
            case .keptAlive: "GET /health HTTP/1.1\r\nHost: localhost\r\n\r\n"
            }
        }

        /// The limit that closes it.
        var limit: ConnectionDeadlines.Limit {
            switch self {
            case .silent, .keptAlive: .idle
            case .partialHead: .head
            case .bodyByte: .body
            }
        }

        func duration(_ limits: ConnectionLimits) -> Duration {
            switch limit {
            case .idle: limits.idleTimeout
            case .head: limits.headTimeout
            case .body, .send: limits.bodyTimeout
            }
        }
    }

    static var shortLimits: ServerConfiguration {
        var configuration = testConfiguration()
        configuration.connections.headTimeout = .seconds(1)
        configuration.connections.bodyTimeout = .milliseconds(1500)
        configuration.connections.idleTimeout = .seconds(5)
        return configuration
    }

    @Test(
        "stalled connections of every kind are closed by their own limit, never before it; /health answers meanwhile and after"
    )
    func stalledConnectionsAreClosed() async throws {
        let configuration = Self.shortLimits
        let limits = configuration.connections
        let log = InMemoryLogHandler()
        var logger = Logger(label: "hearclear.test.slow") { _ in log }
        logger.logLevel = .debug
        let (endings, healthDuring, healthAfter) = try await withLiveServer(configuration, logger: logger) { port in
            let answered = Count()
            return try await withThrowingTaskGroup(of: (Stall, RawConnection.Ending).self) { group in
                for stall in Stall.allCases {
                    for _ in 0..<10 {
                        group.addTask {
                            let connection = try await RawConnection.open(port: port)
                            return (stall, try await connection.run(sending: stall.bytes, answered: answered.add))
                        }
                    }
                }
                // Meanwhile: once the kept-alive ones have their answer, all 40 are open.
                _ = try await eventually("the ten kept-alive connections answered") {
                    answered.value >= 10 ? true : nil
                }
                let during = try await RawConnection.get(port: port, path: "/health")
                var endings: [(Stall, RawConnection.Ending)] = []
                for try await ending in group { endings.append(ending) }
                return (endings, during, try await RawConnection.get(port: port, path: "/health"))
            }
        }
        // "connection closed: out of time", limit and peer (address:port), by the server's log.
        var closedFor: [String: String] = [:]
        for entry in log.entries where entry.message == "connection closed: out of time" {
            if let peer = entry.metadata["peer"], let limit = entry.metadata["limit"] {
                closedFor["\(peer)"] = "\(limit)"
            }
        }

        #expect(endings.count == 40)
        for (stall, ending) in endings {
            #expect(ending.closedByServer, "\(stall.rawValue): still open after \(ending.after)")
            // By its own limit, as the server says: a partial head or a stalled body by theirs,
            // not by the idle one.
            #expect(
                closedFor["127.0.0.1:\(ending.localPort)"] == stall.limit.rawValue,
                "\(stall.rawValue): closed for \(closedFor["127.0.0.1:\(ending.localPort)"] ?? "no limit named")")
            // Never before its limit: the client's clock starts before the server's.
            let limit = stall.duration(limits)
            #expect(ending.after >= limit, "\(stall.rawValue): closed after \(ending.after), limit \(limit)")
            if stall == .keptAlive {
                #expect(ending.received.hasPrefix("HTTP/1.1 200"), "\(ending.received)")
            } else {
                #expect(ending.received.isEmpty, "\(stall.rawValue): \(ending.received)")
            }
        }
        #expect(healthDuring.hasPrefix("HTTP/1.1 200"), "\(healthDuring)")
        #expect(healthAfter.hasPrefix("HTTP/1.1 200"), "\(healthAfter)")
    }

    @Test("past the cap a connection is answered 503 with Retry-After and closed; once some close, it serves again")
    func connectionCap() async throws {
        var configuration = testConfiguration()
        configuration.connections.maxConnections = 20
        configuration.connections.idleTimeout = .seconds(600)
        let (admitted, turnedAway, healthAtCap, healthAfter) = try await withLiveServer(configuration) { port, client in
            // The test client's own connection is the first of the 20.
            _ = try await client.execute(uri: "/health", method: .get)
            let answered = Count()
            var connections: [RawConnection] = []
            for _ in 0..<19 { connections.append(try await RawConnection.open(port: port)) }
            return try await withThrowingTaskGroup(of: RawConnection.Ending.self) { group in
                for connection in connections {
                    group.addTask { try await connection.run(sending: Stall.keptAlive.bytes, answered: answered.add) }
                }
                let admitted = try await eventually("19 connections answered") {
                    answered.value >= 19 ? answered.value : nil
                }

                let turnedAway = try await RawConnection.open(port: port).run(sending: Stall.keptAlive.bytes)
                let healthAtCap = try await RawConnection.get(port: port, path: "/health")

                // Five clients leave: their places are free again (once the server has seen them go).
                for connection in connections.prefix(5) { try? await connection.close() }
                let healthAfter = try await eventually("/health answered 200 once five connections left") {
                    let health = try await RawConnection.get(port: port, path: "/health")
                    return health.hasPrefix("HTTP/1.1 200") ? health : nil
                }
                for connection in connections.dropFirst(5) { try? await connection.close() }
                while (try? await group.next()) != nil {}
                return (admitted, turnedAway, healthAtCap, healthAfter)
            }
        }

        #expect(admitted == 19)
        #expect(turnedAway.received.hasPrefix("HTTP/1.1 503"), "\(turnedAway.received)")
        #expect(turnedAway.received.contains("Retry-After: 5\r\n"))
        #expect(turnedAway.received.contains(#""type":"https://hearclear.app/problems/unavailable""#))
        #expect(turnedAway.closedByServer)
        #expect(healthAtCap.hasPrefix("HTTP/1.1 503"), "\(healthAtCap)")
        #expect(healthAfter.hasPrefix("HTTP/1.1 200"), "\(healthAfter)")
    }

    @Test("the clock of a connection: idle, head, body (stretched by the minimum rate, cut on a stall), answer, send")
    func connectionClock() {
        var limits = ConnectionLimits()
        limits.bodyMinimumRate = 1024
        let start = NIODeadline.uptimeNanoseconds(1_000_000_000)
        func at(_ seconds: Double) -> NIODeadline { start + .nanoseconds(Int64(seconds * 1e9)) }
        var clock = ConnectionDeadlines(limits: limits, connectedAt: start)

        #expect(clock.deadline?.limit == .idle)
        #expect(clock.deadline?.at == at(60))
        clock.bytesArrived(at: at(5))
        #expect(clock.deadline?.limit == .head)
        #expect(clock.deadline?.at == at(15))
        clock.bytesArrived(at: at(5.5))  // more of the same head: its clock does not restart
        #expect(clock.deadline?.at == at(15))

        clock.headArrived(at: at(6))
        #expect(clock.deadline?.limit == .body)
        #expect(clock.deadline?.at == at(36))
        clock.bodyArrived(1 << 20, at: at(7))  // 1 MiB earns 1,024 s, but a stall still ends it 30 s on
        #expect(clock.deadline?.at == at(37))
        clock.bodyArrived(10, at: at(30))
        #expect(clock.deadline?.at == at(60))

        var trickle = ConnectionDeadlines(limits: limits, connectedAt: start)
        trickle.headArrived(at: at(0))
        for second in 1...40 { trickle.bodyArrived(1, at: at(Double(second))) }
        #expect(trickle.deadline.map { $0.at < at(31) } == true, "one byte a second earns almost nothing")

        clock.requestEnded(at: at(31))
        #expect(clock.deadline == nil, "the answer is the server's time")
        clock.bytesArrived(at: at(32))  // the next head, sent before the answer: waits for it
        #expect(clock.deadline == nil)
        clock.answerEnded(at: at(40))
        #expect(clock.deadline?.limit == .head)
        #expect(clock.deadline?.at == at(50))

        var idle = ConnectionDeadlines(limits: limits, connectedAt: start)
        idle.headArrived(at: at(1))
        idle.requestEnded(at: at(1))
        idle.writabilityChanged(isWritable: false, at: at(2))
        #expect(idle.deadline?.limit == .send)
        #expect(idle.deadline?.at == at(32))
        idle.writabilityChanged(isWritable: true, at: at(3))
        idle.answerEnded(at: at(4))
        #expect(idle.deadline?.limit == .idle)
        #expect(idle.deadline?.at == at(64))
    }

    @Test("the cap stays under the open-file limit, and the settings are checked")
    func capAndSettings() throws {
        #expect(ConnectionLimits.cap(4096, openFileLimit: 1024, reserve: 232) == 792)
        #expect(ConnectionLimits.cap(4096, openFileLimit: 1_048_576, reserve: 232) == 4096)
        #expect(ConnectionLimits.cap(4096, openFileLimit: 100, reserve: 232) == 1)

        let read = try ServerConfiguration(
            reader: ConfigReader(
                provider: InMemoryProvider(values: [
                    "hearclear.http.head.timeout": 2.5, "hearclear.http.max.connections": 100,
                ])))
        #expect(read.connections.headTimeout == .milliseconds(2500))
        #expect(read.connections.bodyTimeout == .seconds(30))
        #expect(read.connections.idleTimeout == .seconds(60))
        #expect(read.connections.maxConnections == 100)
        for (key, value) in [
            ("hearclear.http.idle.timeout", ConfigValue(.double(0), isSecret: false)),
            ("hearclear.http.max.connections", ConfigValue(.int(0), isSecret: false)),
            ("hearclear.http.body.min.rate", ConfigValue(.int(-1), isSecret: false)),
        ] {
            #expect(throws: ConfigurationError.self) {
                try ServerConfiguration(
                    reader: ConfigReader(provider: InMemoryProvider(values: [AbsoluteConfigKey(ConfigKey(key)): value]))
                )
            }
        }
    }
}

/// The whole application on a real socket, with `configuration`'s limits.
private func withLiveServer<T: Sendable>(
    _ configuration: ServerConfiguration, logger: Logger = testLogger,
    _ body: @Sendable @escaping (Int, any TestClientProtocol) async throws -> T
) async throws -> T {
    try await withTestDatabase { _, databaseConfiguration in
        let app = try await buildApplication(
            configuration: configuration, database: .external(databaseConfiguration), logger: logger)
        return try await app.boundedTest(.live) { client in try await body(try #require(client.port), client) }
    }
}

private func withLiveServer<T: Sendable>(
    _ configuration: ServerConfiguration, logger: Logger = testLogger,
    _ body: @Sendable @escaping (Int) async throws -> T
) async throws -> T {
    try await withLiveServer(configuration, logger: logger) { port, _ in try await body(port) }
}

/// A bare TCP connection to the server, to stall in ways an HTTP client would not.
struct RawConnection: Sendable {
    struct Ending: Sendable {
        /// What the server sent before closing.
        var received: String
        /// From just before the connection was opened until the server closed it.
        var after: Duration
        /// The server closed it (end of stream or reset), rather than the watchdog or the test.
        var closedByServer: Bool
        /// The client's port, by which the server's log names the connection.
        var localPort: Int
    }

    let channel: NIOAsyncChannel<ByteBuffer, ByteBuffer>
    let opened: ContinuousClock.Instant

    /// The connection's clock starts before it connects, so it never starts after the server's
    /// (which starts at accept): on a loaded machine this task may resume long after the connect.
    static func open(port: Int) async throws -> RawConnection {
        let opening = ContinuousClock.now
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connect(host: "127.0.0.1", port: port) { channel in
                channel.eventLoop.makeCompletedFuture {
                    try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel)
                }
            }
        return RawConnection(channel: channel, opened: opening)
    }

    /// `GET path` on a connection of its own: what came back.
    static func get(port: Int, path: String) async throws -> String {
        try await open(port: port).run(
            sending: "GET \(path) HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n"
        ).received
    }

    /// Sends `bytes`, then reads until the server closes the
    /// connection; `answered` is called once when a response head has come. After `watchdog` (a
    /// bound on a hang, not a verdict) the connection is closed here and the ending says so.
    func run(
        sending bytes: String, watchdog: Duration = TestPatience.event,
        answered: @escaping @Sendable () -> Void = {}
    ) async throws -> Ending {
        let closedHere = Flag()
        let channel = self.channel
        let localPort = channel.channel.localAddress?.port ?? 0
        let watchdogTask = Task {
            try await Task.sleep(for: watchdog)
            closedHere.set()
            try await channel.channel.close()
        }
        defer { watchdogTask.cancel() }
        return try await channel.executeThenClose { inbound, outbound in
            do {
                if !bytes.isEmpty { try await outbound.write(ByteBuffer(string: bytes)) }
            } catch {
                // The server may answer and close first (past the cap it does not wait for the request).
            }
            var received = ByteBuffer()
            var headSeen = false
            do {
                for try await part in inbound {
                    received.writeImmutableBuffer(part)
                    if !headSeen, String(buffer: received).contains("\r\n\r\n") {
                        headSeen = true
                        answered()
                    }
                }
            } catch {
                // A reset is the server closing too.
            }
            return Ending(
                received: String(buffer: received), after: .now - opened, closedByServer: !closedHere.value,
                localPort: localPort)
        }
    }

    /// Closes it from the client's side.
    func close() async throws {
        try await channel.channel.close()
    }
}

private final class Flag: Sendable {
    private let state = Atomic(false)
    func set() { state.store(true, ordering: .relaxed) }
    var value: Bool { state.load(ordering: .relaxed) }
}

private final class Count: Sendable {
    private let state = Atomic(0)
    func add() { state.add(1, ordering: .relaxed) }
    var value: Int { state.load(ordering: .relaxed) }
}
