import Dispatch
import Foundation
import Synchronization
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Makes sure a test run ends, and says why when it is ended from outside: on SIGTERM or SIGINT,
/// or once the run has lasted `HEARCLEAR_TEST_DEADLINE_MINUTES` (default 45, against about 4 on a
/// quiet machine), it prints who held and who waited for the run's places (``TestSlots``), runs
/// the registered clean-ups (killing the `hearclear serve` processes tests started) and exits.
/// The test clusters stop by themselves when this process goes (their watchdog).
///
/// Started by the first test that takes a place. Hummingbird's test frameworks also listen for
/// SIGTERM to shut their applications down gracefully; this handler ends the process anyway.
public enum TestWatchdog {
    private static let cleanups = Mutex<[UInt64: @Sendable () -> Void]>([:])
    private static let nextCleanup = Atomic<UInt64>(0)
    private static let queue = DispatchQueue(label: "hearclear.tests.watchdog")
    nonisolated(unsafe) private static var sources: [any DispatchSourceSignal] = []

    /// Installs the handlers and the deadline once.
    public static func start() {
        _ = installed
    }

    private static let installed: Void = {
        for (number, name) in [(SIGTERM, "SIGTERM"), (SIGINT, "SIGINT")] {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
            source.setEventHandler { end(because: "\(name) received", status: 128 + number) }
            source.resume()
            sources.append(source)
        }
        let minutes = ProcessInfo.processInfo.environment["HEARCLEAR_TEST_DEADLINE_MINUTES"].flatMap(Double.init) ?? 45
        let deadline = Thread {
            Thread.sleep(forTimeInterval: minutes * 60)
            end(because: "the test run passed its deadline of \(minutes) minutes", status: 1)
        }
        deadline.name = "hearclear test deadline"
        deadline.start()
    }()

    /// Runs `cleanup` if the run is ended from outside; returns a token for ``unregister(_:)``.
    public static func register(_ cleanup: @escaping @Sendable () -> Void) -> UInt64 {
        start()
        let token = nextCleanup.add(1, ordering: .relaxed).newValue
        cleanups.withLock { $0[token] = cleanup }
        return token
    }

    public static func unregister(_ token: UInt64) {
        _ = cleanups.withLock { $0.removeValue(forKey: token) }
    }

    /// The running test's name, for reports.
    public static var currentTestName: String {
        guard let test = Test.current else { return "(outside a test)" }
        return test.displayName ?? test.name
    }

    private static func end(because reason: String, status: Int32) -> Never {
        let message = "\nhearclear tests: \(reason); ending the run.\n\(TestSlots.report)\n"
        FileHandle.standardError.write(Data(message.utf8))
        for cleanup in cleanups.withLock({ Array($0.values) }) { cleanup() }
        _exit(status)
    }
}
