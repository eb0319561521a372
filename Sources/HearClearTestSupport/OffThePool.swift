import Foundation
import Synchronization

/// Runs blocking work (a process's end, `EmbeddedPostgres.start`) on a thread of its own, off
/// Swift's concurrency pool: on two cores that pool has two threads, and a blocked one halves
/// every other test's progress.
public func offThePool<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread { continuation.resume(with: Result { try work() }) }.start()
    }
}

/// `work`'s result, or ``AbandonedWait`` naming `what` once `limit` has passed: then `work` is
/// cancelled and left to end on its own, so a wait that cannot end (a continuation never
/// resumed) fails its test instead of hanging the run.
public func abandonAfter<T: Sendable>(
    _ limit: Duration, _ what: String, _ work: @escaping @Sendable () async throws -> T
) async throws -> T {
    let outcome = OneOutcome<T>()
    let running = Task {
        do { outcome.settle(.success(try await work())) } catch { outcome.settle(.failure(error)) }
    }
    let timer = Task {
        try? await Task.sleep(for: limit)
        if outcome.settle(.failure(AbandonedWait(what: what, limit: limit))) { running.cancel() }
    }
    defer { timer.cancel() }
    return try await outcome.value
}

public struct AbandonedWait: Error, CustomStringConvertible {
    public let what: String
    public let limit: Duration
    public var description: String { "gave up waiting for \(what) after \(limit)" }
}

/// The first result wins; whoever awaits ``value`` gets it.
public final class OneOutcome<T: Sendable>: Sendable {
    private struct State {
        var result: Result<T, any Error>?
        var waiter: CheckedContinuation<T, any Error>?
    }

    private let state = Mutex(State())

    public init() {}

    public var isSettled: Bool { state.withLock { $0.result != nil } }

    /// True when this result was the first.
    @discardableResult
    public func settle(_ result: Result<T, any Error>) -> Bool {
        let (first, waiter) = state.withLock { state -> (Bool, CheckedContinuation<T, any Error>?) in
            guard state.result == nil else { return (false, nil) }
            state.result = result
            defer { state.waiter = nil }
            return (true, state.waiter)
        }
        waiter?.resume(with: result)
        return first
    }

    public var value: T {
        get async throws {
            try await withCheckedThrowingContinuation { continuation in
                let ready = state.withLock { state -> Result<T, any Error>? in
                    if let result = state.result { return result }
                    state.waiter = continuation
                    return nil
                }
                if let ready { continuation.resume(with: ready) }
            }
        }
    }
}
