import Foundation
import HearClearEngine
import HearClearTestSupport
import PostgresNIO
import Synchronization

/// Runs the built `hearclear` (or `hearclear-bench`) executable, which `swift build` / `swift test`
/// put beside the test binary.
public enum HearClearCommand {
    public struct Result: Sendable {
        public var status: Int32
        public var output: String
        public var errors: String
    }

    public static func executable(_ program: String = "hearclear") -> URL {
        #if os(Linux)
            let testBinary = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? ""
            return URL(fileURLWithPath: testBinary).deletingLastPathComponent().appendingPathComponent(program)
        #else
            let bundle = Bundle.allBundles.first { $0.bundlePath.hasSuffix(".xctest") } ?? Bundle.main
            return bundle.bundleURL.deletingLastPathComponent().appendingPathComponent(program)
        #endif
    }

    /// Runs `hearclear arguments…` to its end, off the concurrency pool; standard error goes
    /// through a file in `scratch` so neither pipe can fill up. `environment` is added to the
    /// test's own, after the test servers' device key (so that no command generates one into the
    /// working directory's `.hearclear`). A command still running after `limit` is killed and the
    /// call throws, naming it.
    public static func run(
        _ arguments: [String], program: String = "hearclear", scratch: URL, environment: [String: String] = [:],
        limit: Duration = TestPatience.command
    ) async throws -> Result {
        let errorsFile = scratch.appendingPathComponent("stderr-\(UUID().uuidString)")
        return try await offThePool {
            guard FileManager.default.createFile(atPath: errorsFile.path, contents: nil) else {
                throw CocoaError(.fileWriteUnknown)
            }
            let errors = try FileHandle(forWritingTo: errorsFile)
            let output = Pipe()
            let process = Process()
            process.executableURL = executable(program)
            process.arguments = arguments
            process.environment = ProcessInfo.processInfo.environment
                .merging(["HEARCLEAR_DEVICE_KEY": DeviceKey.testSecret]) { _, added in added }
                .merging(environment) { _, added in added }
            process.standardOutput = output
            process.standardError = errors
            try process.run()
            let killed = ProcessWatch(process, limit: limit)
            let printed = output.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            killed.end()
            try errors.close()
            let complaints = try Data(contentsOf: errorsFile)
            guard !killed.fired else {
                throw ServerProcessError(
                    "\(program) \(arguments.joined(separator: " ")) did not end within \(limit); killed.\n"
                        + String(decoding: complaints.suffix(2000), as: UTF8.self))
            }
            return Result(
                status: process.terminationStatus, output: String(decoding: printed, as: UTF8.self),
                errors: String(decoding: complaints, as: UTF8.self))
        }
    }
}

/// Kills a child process (and what it started) once `limit` has passed or the test run is ended
/// from outside (``TestWatchdog``); ``end()`` once it has ended by itself.
public final class ProcessWatch: Sendable {
    private final class State: Sendable {
        public let value = Mutex((ended: false, fired: false))
    }
    private let state = State()
    private let token: UInt64

    public init(_ process: Process, limit: Duration) {
        let pid = process.processIdentifier
        token = TestWatchdog.register { ProcessWatch.kill(pid) }
        let state = self.state
        Thread {
            let clock = ContinuousClock()
            let deadline = clock.now + limit
            while clock.now < deadline {
                if state.value.withLock({ $0.ended }) { return }
                Thread.sleep(forTimeInterval: 0.2)
            }
            let kill = state.value.withLock { state -> Bool in
                guard !state.ended else { return false }
                state.fired = true
                return true
            }
            if kill { ProcessWatch.kill(pid) }
        }.start()
    }

    /// SIGKILL of `pid` and, on Linux, of everything below it.
    public static func kill(_ pid: pid_t) {
        #if os(Linux)
            ProcessTree.killAndWait(root: pid, seconds: 5)
        #else
            _ = Foundation.kill(pid, SIGKILL)
        #endif
    }

    /// Whether the limit killed it.
    public var fired: Bool { state.value.withLock { $0.fired } }

    public func end() {
        state.value.withLock { $0.ended = true }
        TestWatchdog.unregister(token)
    }
}

/// A private temporary folder for a test's own files, removed afterwards.
public func withScratchDirectory<T>(_ body: (URL) async throws -> T) async throws -> T {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
        "hearclear-meter-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    return try await body(directory)
}

extension HearClearCommand {
    /// The `DATABASE_URL` a command is given for the test database `configuration` names, on the
    /// shared test cluster's socket.
    public static func databaseURL(_ configuration: PostgresClient.Configuration) async throws -> String {
        let socket = try await TestCluster.shared.cluster().socketDirectory
        return "postgres://\(configuration.username)@/\(configuration.database ?? "")?host=\(socket)"
    }
}
