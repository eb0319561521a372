import Foundation
import Logging
import PostgresNIO
import Synchronization
import Testing

@testable import HearClearEngine

/// Log lines kept in memory.
final class CapturedLog: Sendable {
    let lines = Mutex<[(level: Logger.Level, message: String)]>([])

    var logger: Logger {
        Logger(label: "outage-test") { _ in CapturingHandler(log: self) }
    }

    struct CapturingHandler: LogHandler {
        let log: CapturedLog
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace
        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }
        func log(event: LogEvent) {
            log.lines.withLock { $0.append((event.level, "\(event.message)")) }
        }
    }
}

@Suite("A database outage")
struct DatabaseOutageTests {
    struct Unrelated: Error {}

    @Test("what counts as the database being away")
    func classification() {
        #expect(DatabaseOutage.isOutage(TimeoutError(limit: .seconds(5))))
        #expect(DatabaseOutage.isOutage(DatabaseUnavailable()))
        #expect(!DatabaseOutage.isOutage(Unrelated()))
        #expect(!DatabaseOutage.isOutage(CancellationError()))
    }

    @Test("an outage is logged once, and its end once")
    func loggedOnce() {
        let log = CapturedLog()
        let outage = DatabaseOutage()
        outage.answered(logger: log.logger)
        #expect(log.lines.withLock { $0.isEmpty }, "no recovery without an outage")
        for _ in 0..<50 { outage.failed(DatabaseUnavailable(), logger: log.logger) }
        #expect(outage.isDown)
        outage.answered(logger: log.logger)
        outage.answered(logger: log.logger)
        #expect(!outage.isDown)
        let lines = log.lines.withLock { $0 }
        #expect(lines.map(\.level) == [.error, .notice])
        #expect(lines.first?.message.contains("database unreachable") == true)
        #expect(lines.last?.message == "database reachable again")
    }

    @Test("a pool that cannot connect fails with an outage error")
    func unreachablePool() async throws {
        // Nothing listens on this socket: the pool retries, then gives up (after about a
        // minute: why requests do not wait for it once an outage is known).
        let configuration = PostgresClient.Configuration(
            unixSocketPath: "/tmp/hearclear-no-such-directory/.s.PGSQL.5432", username: "nobody", password: nil,
            database: "none")
        let client = PostgresClient(configuration: configuration)
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await client.run() }
            defer { group.cancelAll() }
            do {
                _ = try await withTimeout(.seconds(3)) { try await client.query("SELECT 1") }
                Issue.record("a query without a database answered")
            } catch {
                #expect(DatabaseOutage.isOutage(error), "\(error)")
            }
        }
    }
}
