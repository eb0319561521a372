import Foundation
import Synchronization

/// How much heavy work the test run does at once (docs/ARCHITECTURE.md, "Tests"). Swift Testing
/// starts every test at once; on two shared cores a hundred servers, clusters and clients at
/// once starve each other, and a test's limits then measure the machine. Tests that use a
/// database, or start a process with a PostgreSQL of its own, take a place here first and wait
/// for one in turn. Sizes come from `HEARCLEAR_TEST_DATABASES` (default 4) and
/// `HEARCLEAR_TEST_PROCESSES` (default 1).
public enum TestSlots {
    /// A test database and whatever runs on it (an application, its worker and clients):
    /// ``withTestDatabase(isolation:_:)`` takes one.
    public static let databases = TestSlotPool(name: "database", width: width("HEARCLEAR_TEST_DATABASES", 4))
    /// A process of its own with an embedded PostgreSQL (`hearclear serve`, a cluster a test
    /// starts and kills): each initdb and start costs seconds of CPU.
    public static let processes = TestSlotPool(name: "process", width: width("HEARCLEAR_TEST_PROCESSES", 1))

    static func width(_ variable: String, _ fallback: Int) -> Int {
        ProcessInfo.processInfo.environment[variable].flatMap(Int.init).map { max(1, $0) } ?? fallback
    }

    /// Says what the current task is doing with the places it holds (``TestSlotPool/note(_:)``).
    public static func note(_ stage: String) {
        databases.note(stage)
        processes.note(stage)
    }

    /// Who holds and who waits for a place, for a report when the run is stopped.
    static var report: String {
        [databases, processes].map(\.report).joined(separator: "\n")
    }
}

/// A fixed number of places, handed out first come, first served. A task that holds a place of
/// this pool and asks again (a helper that takes one, called inside another) is not made to
/// wait for itself. Waiting ends when the test is cancelled.
public final class TestSlotPool: Sendable {
    public let name: String
    public let width: Int

    private struct Waiter {
        let id: UInt64
        let who: String
        let since: ContinuousClock.Instant
        /// Resumed with true once the place is given, false when the wait is cancelled.
        let continuation: CheckedContinuation<Bool, Never>
    }

    private struct State {
        var holders: [UInt64: (who: String, since: ContinuousClock.Instant, stage: String)] = [:]
        var waiting: [Waiter] = []
        var nextID: UInt64 = 0
    }

    private let state = Mutex(State())
    @TaskLocal private static var held: Set<String> = []
    /// The place the current task holds in this pool, if any, for ``note(_:)``.
    @TaskLocal private static var holding: [ObjectIdentifier: UInt64] = [:]

    init(name: String, width: Int) {
        self.name = name
        self.width = width
    }

    /// Runs `body` once a place is free, and frees it after.
    public func withSlot<T>(isolation: isolated (any Actor)? = #isolation, _ body: () async throws -> T) async throws
        -> T
    {
        if Self.held.contains(name) { return try await body() }
        TestWatchdog.start()
        let id = try await acquire(who: TestWatchdog.currentTestName)
        defer { release(id) }
        var holding = Self.holding
        holding[ObjectIdentifier(self)] = id
        return try await Self.$holding.withValue(holding) {
            try await Self.$held.withValue(Self.held.union([name])) { try await body() }
        }
    }

    /// Says what the current task is doing with its place, for the report of a run ended from
    /// outside (a test that hangs is then named with where it stopped).
    public func note(_ stage: String) {
        guard let id = Self.holding[ObjectIdentifier(self)] else { return }
        state.withLock { $0.holders[id]?.stage = stage }
    }

    private func acquire(who: String) async throws -> UInt64 {
        let (id, granted) = state.withLock { state -> (UInt64, Bool) in
            let id = state.nextID
            state.nextID += 1
            guard state.holders.count < width, state.waiting.isEmpty else { return (id, false) }
            state.holders[id] = (who, .now, "")
            return (id, true)
        }
        if granted { return id }
        let given = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let cancelled = state.withLock { state -> Bool in
                    // Checked under the lock: a cancellation after this finds the waiter below.
                    if Task.isCancelled { return true }
                    state.waiting.append(Waiter(id: id, who: who, since: .now, continuation: continuation))
                    return false
                }
                if cancelled { continuation.resume(returning: false) }
            }
        } onCancel: {
            let waiter = state.withLock { state -> Waiter? in
                guard let index = state.waiting.firstIndex(where: { $0.id == id }) else { return nil }
                return state.waiting.remove(at: index)
            }
            waiter?.continuation.resume(returning: false)
        }
        guard given else { throw CancellationError() }
        return id
    }

    private func release(_ id: UInt64) {
        let next = state.withLock { state -> Waiter? in
            state.holders[id] = nil
            guard !state.waiting.isEmpty else { return nil }
            let next = state.waiting.removeFirst()
            state.holders[next.id] = (next.who, .now, "")
            return next
        }
        next?.continuation.resume(returning: true)
    }

    /// "database places (4):", then a line for each test holding or awaiting one, oldest first.
    var report: String {
        let now = ContinuousClock.now
        func age(_ since: ContinuousClock.Instant) -> String { "\((now - since).components.seconds) s" }
        return state.withLock { state in
            let holders = state.holders.values.sorted { $0.since < $1.since }
                .map { "  holding for \(age($0.since)): \($0.who)" + ($0.stage.isEmpty ? "" : " [\($0.stage)]") }
            let waiting = state.waiting.map { "  waiting for \(age($0.since)): \($0.who)" }
            return (["\(name) places (\(width)):"] + holders + waiting).joined(separator: "\n")
        }
    }
}
