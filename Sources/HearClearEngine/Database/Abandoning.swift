import Synchronization

/// Runs `body` in a task of its own and returns what it returns, unless `watch`, run beside it,
/// gives up first by returning an error: then that error is thrown, and `body` is cancelled and
/// left to end on its own, not awaited. For work that cancellation cannot stop: a query in flight
/// on a connection that died may never end inside PostgresNIO (seen in the crash tests), and a
/// task group would wait for it for ever. `watch` is cancelled once `body` has ended, and `body`
/// when the caller is.
func giveUp<T: Sendable>(
    on body: @escaping @Sendable () async throws -> T, when watch: @escaping @Sendable () async -> (any Error)?
) async throws -> T {
    let race = Race<T>()
    return try await withTaskCancellationHandler {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
            race.start(
                continuation,
                work: Task {
                    do { race.settle(.success(try await body())) } catch { race.settle(.failure(error)) }
                },
                watcher: Task {
                    if let error = await watch() { race.settle(.failure(error)) }
                })
        }
    } onCancel: {
        race.cancelWork()
    }
}

/// `body`, or a ``TimeoutError`` once `limit` has passed (a pool with no reachable database would
/// otherwise wait for a connection for a long time), `body` then left to end on its own
/// (``giveUp(on:when:)``).
public func withTimeout<T: Sendable>(_ limit: Duration, _ body: @Sendable @escaping () async throws -> T) async throws
    -> T
{
    try await giveUp(on: body) {
        do { try await Task.sleep(for: limit) } catch { return nil }
        return TimeoutError(limit: limit)
    }
}

/// What ``withTimeout(_:_:)`` throws when `limit` has passed without an answer.
public struct TimeoutError: Error, CustomStringConvertible {
    public let limit: Duration
    public var description: String { "no answer within \(limit)" }
}

/// `body`, unless `abandon()` (asked once a second) turns true first: then ``Abandoned`` is
/// thrown and `body` is left to end on its own (``giveUp(on:when:)``).
func abandonable<T: Sendable>(
    _ body: @escaping @Sendable () async throws -> T, abandon: @escaping @Sendable () -> Bool
) async throws -> T {
    try await giveUp(on: body) {
        while !Task.isCancelled {
            if abandon() { return Abandoned() }
            try? await Task.sleep(for: .seconds(1))
        }
        return nil
    }
}

/// Work given up by ``abandonable(_:abandon:)``.
struct Abandoned: Error, CustomStringConvertible {
    var description: String { "abandoned: begun before the database came back, or at shutdown" }
}

/// The body's task, its watcher and the caller's continuation: the first result resumes the
/// caller and cancels the other task.
private final class Race<T: Sendable>: Sendable {
    private struct State {
        var continuation: CheckedContinuation<T, any Error>?
        var result: Result<T, any Error>?
        var work: Task<Void, Never>?
        var watcher: Task<Void, Never>?
    }

    private let state = Mutex(State())

    func start(_ continuation: CheckedContinuation<T, any Error>, work: Task<Void, Never>, watcher: Task<Void, Never>) {
        let settled = state.withLock { state -> Result<T, any Error>? in
            state.work = work
            state.watcher = watcher
            if let result = state.result { return result }
            state.continuation = continuation
            return nil
        }
        if let settled {
            work.cancel()
            watcher.cancel()
            continuation.resume(with: settled)
        }
    }

    func settle(_ result: Result<T, any Error>) {
        let (continuation, tasks) = state.withLock {
            state -> (CheckedContinuation<T, any Error>?, [Task<Void, Never>]) in
            guard state.result == nil else { return (nil, []) }
            state.result = result
            defer { state.continuation = nil }
            return (state.continuation, [state.work, state.watcher].compactMap { $0 })
        }
        // Cancelling the task that settled is harmless: it has ended its work.
        for task in tasks { task.cancel() }
        continuation?.resume(with: result)
    }

    func cancelWork() {
        state.withLock { $0.work }?.cancel()
    }
}
