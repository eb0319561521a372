import Configuration
import Foundation
import HearClearStore
import HearClearTestSupport
import Hummingbird
import HummingbirdTesting
import NIOCore
import NIOPosix
import Synchronization
import Testing

@testable import HearClearEngine
@testable import HearClearServer

/// Slow and idle clients are cut off, and past the connection cap a client is answered 503
/// (issue 14, part 4; docs/ARCHITECTURE.md, "Connections and time limits"). The live tests use
/// limits of a second or two and bare sockets; their bounds are generous (2 shared cores).
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
        func limit(_ limits: ConnectionLimits) -> Duration {
            switch self {
            case .silent, .keptAlive: limits.idleTimeout
            case .partialHead: limits.headTimeout
            case .bodyByte: limits.bodyTimeout
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

    @Test("stalled connections of every kind are closed within their limit; /health answers meanwhile and after")
    func stalledConnectionsAreClosed() async throws {
        let configuration = Self.shortLimits
        let limits = configuration.connections
        let (endings, healthDuring, healthAfter) = try await withLiveServer(configuration) { port in
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
                let clock = ContinuousClock()
                let waitUntil = clock.now + .seconds(10)
                while answered.value < 10, clock.now < waitUntil { try await Task.sleep(for: .milliseconds(20)) }
                let during = try await RawConnection.get(port: port, path: "/health")
                var endings: [(Stall, RawConnection.Ending)] = []
                for try await ending in group { endings.append(ending) }
                return (endings, during, try await RawConnection.get(port: port, path: "/health"))
            }
        }

        #expect(endings.count == 40)
        for (stall, ending) in endings {
            let limit = stall.limit(limits)
            #expect(ending.closedByServer, "\(stall.rawValue): still open after \(ending.after)")
            // Not before its limit (the server's clock starts after the client's), and within it + 3 s:
            // a partial head or a stalled body by their own limits, not by the idle one (5 s).
            #expect(ending.after >= limit * 4 / 5, "\(stall.rawValue): closed after \(ending.after), limit \(limit)")
            #expect(ending.after < limit + .seconds(3), "\(stall.rawValue): closed after \(ending.after)")
            if stall == .keptAlive {
                #expect(ending.received.hasPrefix("HTTP/1.1 200"), "\(ending.received)")
            } else {
                #expect(ending.received.isEmpty, "\(stall.rawValue): \(ending.received)")
            }
        }
        #expect(healthDuring.hasPrefix("HTTP/1.1 200"), "\(healthDuring)")
        #expect(healthAfter.hasPrefix("HTTP/1.1 200"), "\(healthAfter)")
    }

    @Test("an upload slower than the body limit but above the minimum rate is not cut off")
    func steadyUploadIsServed() async throws {
        var configuration = Self.shortLimits
        configuration.connections.bodyMinimumRate = 64
        // Long enough that a loaded machine's scheduling (the whole suite runs at once) never
        // makes a 250 ms pause look like a stall.
        configuration.connections.bodyTimeout = .seconds(3)
        let ending = try await withLiveServer(configuration) { port in
            // 1,024 bytes over about 4 s: past the 3 s body limit, but each 64 bytes earn a second.
            let body = String(repeating: " ", count: 1023) + "{"
            let connection = try await RawConnection.open(port: port)
            return try await connection.run(
                sending: "POST /api/v2/checkins HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
                    + "Content-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n",
                then: body.utf8.chunked(64).map { (String(decoding: $0, as: UTF8.self), Duration.milliseconds(250)) })
        }

        // The body arrived whole: the route judged it (a 400 or 422 on this body), the server did not cut it.
        #expect(ending.received.hasPrefix("HTTP/1.1 4"), "\(ending.received)")
        #expect(ending.after >= .seconds(3.5))
    }

    @Test("past the cap a connection is answered 503 with Retry-After and closed; once some close, it serves again")
    func connectionCap() async throws {
        var configuration = testConfiguration()
        configuration.connections.maxConnections = 20
        configuration.connections.idleTimeout = .seconds(60)
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
                let clock = ContinuousClock()
                let waitUntil = clock.now + .seconds(10)
                while answered.value < 19, clock.now < waitUntil { try await Task.sleep(for: .milliseconds(20)) }
                let admitted = answered.value

                let turnedAway = try await RawConnection.open(port: port).run(sending: Stall.keptAlive.bytes)
                let healthAtCap = try await RawConnection.get(port: port, path: "/health")

                // Five clients leave: their places are free again.
                for connection in connections.prefix(5) { try? await connection.close() }
                var healthAfter = ""
                let retryUntil = clock.now + .seconds(10)
                while !healthAfter.hasPrefix("HTTP/1.1 200"), clock.now < retryUntil {
                    healthAfter = try await RawConnection.get(port: port, path: "/health")
                    if !healthAfter.hasPrefix("HTTP/1.1 200") { try await Task.sleep(for: .milliseconds(50)) }
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
        #expect(turnedAway.after < .seconds(5))
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
    _ configuration: ServerConfiguration, _ body: @Sendable @escaping (Int, any TestClientProtocol) async throws -> T
) async throws -> T {
    try await withTestDatabase { _, databaseConfiguration in
        let app = try await buildApplication(
            configuration: configuration, database: .external(databaseConfiguration), logger: testLogger)
        return try await app.test(.live) { client in try await body(try #require(client.port), client) }
    }
}

private func withLiveServer<T: Sendable>(
    _ configuration: ServerConfiguration, _ body: @Sendable @escaping (Int) async throws -> T
) async throws -> T {
    try await withLiveServer(configuration) { port, _ in try await body(port) }
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

    /// Sends `bytes`, then each of `then` after its pause, then reads until the server closes the
    /// connection; `answered` is called once when a response head has come. After `watchdog` the
    /// connection is closed here and the ending says so.
    func run(
        sending bytes: String, then pieces: [(String, Duration)] = [], watchdog: Duration = .seconds(20),
        answered: @escaping @Sendable () -> Void = {}
    ) async throws -> Ending {
        let closedHere = Flag()
        let channel = self.channel
        let watchdogTask = Task {
            try await Task.sleep(for: watchdog)
            closedHere.set()
            try await channel.channel.close()
        }
        defer { watchdogTask.cancel() }
        return try await channel.executeThenClose { inbound, outbound in
            do {
                if !bytes.isEmpty { try await outbound.write(ByteBuffer(string: bytes)) }
                for (piece, pause) in pieces {
                    try await Task.sleep(for: pause)
                    try await outbound.write(ByteBuffer(string: piece))
                }
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
                received: String(buffer: received), after: .now - opened, closedByServer: !closedHere.value)
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

extension Sequence {
    fileprivate func chunked(_ size: Int) -> [[Element]] {
        var chunks: [[Element]] = []
        for element in self {
            if chunks.last.map({ $0.count == size }) ?? true { chunks.append([]) }
            chunks[chunks.count - 1].append(element)
        }
        return chunks
    }
}
