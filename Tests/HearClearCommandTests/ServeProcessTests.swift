import Foundation
import FoundationNetworking
import Glibc
import HearClearServerTestSupport
import HearClearTestSupport
import Testing

#if canImport(FoundationNetworking)
#endif

#if canImport(Glibc)
#endif

/// The built `hearclear serve` as a user runs it: its embedded PostgreSQL starts with it and
/// stops with it, and a second server on the same data directory is refused.
@Suite("hearclear serve, the process", .serialized)
struct ServeProcessTests {
    /// Each test starts servers with clusters of their own: one such test at a time in the run.
    static func inTurn(_ body: () async throws -> Void) async throws {
        try await TestSlots.processes.withSlot { try await body() }
    }

    static var binary: String {
        let root = TestCluster.repositoryRoot
        for configuration in ["debug", "release"] {
            let path = "\(root)/.build/\(configuration)/hearclear"
            if FileManager.default.isExecutableFile(atPath: path) { return path }
        }
        return "\(root)/.build/debug/hearclear"
    }

    /// A started process whose output is gathered in memory, killed if the test run is ended
    /// from outside (``TestWatchdog``).
    final class Running: @unchecked Sendable {
        let process = Process()
        private let pipe = Pipe()
        private let lock = NSLock()
        private var text = ""
        private var cleanup: UInt64 = 0

        init(_ arguments: [String]) throws {
            process.executableURL = URL(fileURLWithPath: ServeProcessTests.binary)
            process.arguments = arguments
            process.currentDirectoryURL = URL(fileURLWithPath: TestCluster.repositoryRoot)
            process.standardOutput = pipe
            process.standardError = pipe
            pipe.fileHandleForReading.readabilityHandler = { [weak self] handle in
                let data = handle.availableData
                guard let self, !data.isEmpty else { return }
                self.lock.withLock { self.text += String(decoding: data, as: UTF8.self) }
            }
            try process.run()
            let pid = process.processIdentifier
            cleanup = TestWatchdog.register { ProcessWatch.kill(pid) }
        }

        deinit { TestWatchdog.unregister(cleanup) }

        var output: String { lock.withLock { text } }

        /// Waits until the output contains `marker` or the process ends (bounded by
        /// ``TestPatience/start``).
        func wait(for marker: String) async throws -> Bool {
            let deadline = ContinuousClock.now + TestPatience.start
            while ContinuousClock.now < deadline {
                if output.contains(marker) { return true }
                if !process.isRunning {
                    try await drain()
                    return output.contains(marker)
                }
                try await Task.sleep(for: .milliseconds(50))
            }
            return false
        }

        /// Waits for the process to end (bounded by ``TestPatience/start``); false if it did not.
        func waitForExit() async throws -> Bool {
            let deadline = ContinuousClock.now + TestPatience.start
            while process.isRunning && ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(50)) }
            guard !process.isRunning else { return false }
            try await drain()
            return true
        }

        /// Reads what the exited process wrote that the handler has not delivered yet.
        private func drain() async throws {
            let handle = pipe.fileHandleForReading
            handle.readabilityHandler = nil
            let rest = try await offThePool { handle.readDataToEndOfFile() }
            lock.withLock { text += String(decoding: rest, as: UTF8.self) }
        }
    }

    @Test("serve starts its PostgreSQL, refuses a second server, and stops PostgreSQL on SIGTERM")
    func serveLifecycle() async throws {
        try await Self.inTurn { try await lifecycle() }
    }

    func lifecycle() async throws {
        let dataDir = NSTemporaryDirectory() + "hearclear-serve-\(UUID().uuidString.prefix(8))"
        defer { try? FileManager.default.removeItem(atPath: dataDir) }
        let port = try freePort()

        let first = try Running(["serve", "--port", "\(port)", "--data-dir", dataDir])
        defer { if first.process.isRunning { first.process.terminate() } }
        #expect(try await first.wait(for: "Server started"), "output: \(first.output)")
        let pidFile = try String(contentsOfFile: dataDir + "/postgres/postmaster.pid", encoding: .utf8)
        let postgresPID = Int32(pidFile.split(separator: "\n")[0])!
        #expect(kill(postgresPID, 0) == 0, "PostgreSQL runs while the server does")

        let second = try Running(["serve", "--port", "\(try freePort())", "--data-dir", dataDir])
        #expect(try await second.waitForExit())
        #expect(second.process.terminationStatus != 0)
        #expect(second.output.contains("already using the data directory"), "output: \(second.output)")

        // Other commands reach the cluster the running server holds.
        let listing = try Running(["devices", "list", "--data-dir", dataDir])
        #expect(try await listing.waitForExit())
        #expect(listing.process.terminationStatus == 0, "output: \(listing.output)")

        kill(first.process.processIdentifier, SIGTERM)
        #expect(try await first.waitForExit())
        #expect(first.process.terminationStatus == 0, "output: \(first.output)")
        #expect(kill(postgresPID, 0) != 0, "PostgreSQL stopped with the server")
        #expect(!FileManager.default.fileExists(atPath: dataDir + "/postgres/postmaster.pid"))
    }

    /// The body of `GET url`.
    static func get(_ url: String) async throws -> String {
        let (data, _) = try await URLSession.shared.data(from: URL(string: url)!)
        return String(decoding: data, as: UTF8.self)
    }

    @Test("the read cache's hits, misses and bytes, and rate-limit refusals, show in /metrics")
    func readCacheMetrics() async throws {
        try await Self.inTurn { try await metricsOfAServer() }
    }

    func metricsOfAServer() async throws {
        let dataDir = NSTemporaryDirectory() + "hearclear-metrics-\(UUID().uuidString.prefix(8))"
        defer { try? FileManager.default.removeItem(atPath: dataDir) }
        let port = try freePort()
        // One search an hour, and loopback (this test) not exempt: the second search is refused.
        let server = try Running([
            "serve", "--port", "\(port)", "--data-dir", dataDir, "--admin-password", "x", "--rate-searches-address",
            "1/h", "--rate-exempt", "192.0.2.1",
        ])
        defer { kill(server.process.processIdentifier, SIGKILL) }
        #expect(try await server.wait(for: "Server started"), "output: \(server.output)")
        let base = "http://127.0.0.1:\(port)"
        // The listener starts with the server: wait until an answer is kept, then read it again.
        var metrics = try await eventually("a read cache hit in /metrics") {
            _ = try await Self.get(base + "/api/v2/bands")
            let metrics = try await Self.get(base + "/metrics")
            return metrics.contains(#"hearclear_read_cache_total{result="hit"}"#) ? metrics : nil
        }
        #expect(metrics.contains(#"hearclear_read_cache_total{result="miss"}"#), "\(metrics)")
        #expect(metrics.contains(#"hearclear_read_cache_total{result="hit"}"#), "\(metrics)")
        let bytes = metrics.split(separator: "\n").first { $0.hasPrefix("hearclear_read_cache_bytes ") }
        #expect((bytes?.split(separator: " ").last).flatMap { Double($0) }.map { $0 > 0 } == true, "\(metrics)")

        var statuses: [Int] = []
        for _ in 0..<2 {
            let (_, response) = try await URLSession.shared.data(
                from: URL(string: base + "/api/v2/venues?near=51.5,-0.12")!)
            statuses.append((response as? HTTPURLResponse)?.statusCode ?? 0)
        }
        #expect(statuses == [200, 429])
        metrics = try await Self.get(base + "/metrics")
        #expect(metrics.contains(#"hearclear_rate_limited_total{limit="searches_address"} 1"#), "\(metrics)")
        kill(server.process.processIdentifier, SIGTERM)
        #expect(try await server.waitForExit())
    }

    @Test("serve without its resources refuses to start with one clear line")
    func missingResources() async throws {
        let run = try Running(["serve", "--resources", "/nonexistent", "--data-dir", NSTemporaryDirectory() + "unused"])
        #expect(try await run.waitForExit())
        #expect(run.process.terminationStatus != 0)
        #expect(run.output.contains("--resources"), "output: \(run.output)")
    }

    @Test("a migration changed after it was applied stops serve with the reason, and it exits")
    func failedMigrationStopsServe() async throws {
        try await Self.inTurn { try await failedMigration() }
    }

    func failedMigration() async throws {
        let scratch = NSTemporaryDirectory() + "hearclear-migration-\(UUID().uuidString.prefix(8))"
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        let resources = scratch + "/resources"
        try FileManager.default.createDirectory(atPath: resources, withIntermediateDirectories: true)
        for folder in ["Migrations", "Admin", "Pages", "API"] {
            try FileManager.default.copyItem(
                atPath: TestCluster.repositoryRoot + "/" + folder, toPath: resources + "/" + folder)
        }
        let migrate = try Running(["migrate", "--data-dir", scratch + "/data", "--resources", resources])
        #expect(try await migrate.waitForExit())
        #expect(migrate.process.terminationStatus == 0, "output: \(migrate.output)")
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: resources + "/Migrations/0001_initial.sql"))
        try handle.seekToEnd()
        try handle.write(contentsOf: Data("-- edited after it was applied\n".utf8))
        try handle.close()
        let port = try freePort()

        // Before, the aggregation worker waited for a schema that never came and serve hung.
        let serve = try Running([
            "serve", "--port", "\(port)", "--data-dir", scratch + "/data", "--resources", resources,
        ])
        defer { if serve.process.isRunning { kill(serve.process.processIdentifier, SIGKILL) } }

        #expect(try await serve.waitForExit())
        #expect(serve.process.terminationStatus != 0)
        #expect(serve.output.contains("0001_initial.sql) was changed after it was applied"), "output: \(serve.output)")
        #expect(!FileManager.default.fileExists(atPath: scratch + "/data/postgres/postmaster.pid"))
    }
}
