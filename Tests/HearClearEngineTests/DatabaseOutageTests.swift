import Foundation
import HearClearModel
import HearClearStore
import HearClearTestSupport
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

    @Test("what counts as the database being away: not a slow answer")
    func classification() {
        #expect(!DatabaseOutage.isOutage(TimeoutError(limit: .seconds(5))), "slow is not gone")
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

    @Test("a database nobody listens for is unreachable for readiness, and the outage is known")
    func unreachablePool() async throws {
        // Nothing listens on this socket: the pool keeps trying (for about a minute: why requests
        // do not wait for it once an outage is known), so its query runs out of time, and the
        // probe's own connection is refused. The probe may take as long as it needs.
        let configuration = PostgresClient.Configuration(
            unixSocketPath: "/tmp/hearclear-no-such-directory/.s.PGSQL.5432", username: "nobody", password: nil,
            database: "none")
        let client = PostgresClient(configuration: configuration)
        let outage = DatabaseOutage()
        let readiness = DatabaseReadiness(
            migrations: Migrations(client: client, migrations: [], logger: engineTestLogger),
            endpoint: DatabaseEndpoint(configuration), outage: outage, limit: .milliseconds(200),
            probeLimit: TestPatience.event)
        let state = await withTaskGroup(of: Void.self) { group in
            group.addTask { await client.run() }
            defer { group.cancelAll() }
            return await readiness.check(logger: engineTestLogger)
        }

        guard case .unreachable = state else {
            Issue.record("not unreachable: \(state)")
            return
        }
        #expect(outage.isDown)
    }
}
