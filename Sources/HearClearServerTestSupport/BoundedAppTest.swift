import HTTPTypes
import HearClearTestSupport
import Hummingbird
import HummingbirdTesting
import NIOCore
import Synchronization
import Testing

extension ApplicationProtocol {
    /// `test(setup, body)`, bounded: the application must come up (the body begin) within
    /// ``TestPatience/start`` and stop within ``TestPatience/stop`` after the body, or the test
    /// fails saying which, and the application is cancelled and left behind instead of hanging
    /// the run (Hummingbird's frameworks wait for a port that a failed start never gives, and
    /// for services to stop however long they take).
    public func boundedTest<Value: Sendable>(
        _ setup: TestingSetup, fileID: String = #fileID, filePath: String = #filePath, line: Int = #line,
        column: Int = #column, _ body: @escaping @Sendable (any TestClientProtocol) async throws -> Value
    ) async throws -> Value {
        let sourceLocation = SourceLocation(fileID: fileID, filePath: filePath, line: line, column: column)
        let progress = BoundedTestProgress<Value>()
        let app = self
        let running = Task {
            do {
                TestSlots.note("starting its application")
                let value = try await app.test(setup) { unbounded in
                    let client = BoundedClient(base: unbounded)
                    TestSlots.note("running its application")
                    progress.began()
                    do {
                        let value = try await body(client)
                        TestSlots.note("stopping its application")
                        progress.bodyEnded(.success(value))
                        return value
                    } catch {
                        TestSlots.note("stopping its application after: \(error)")
                        progress.bodyEnded(.failure(error))
                        throw error
                    }
                }
                TestSlots.note("its application stopped")
                progress.finish(.success(value))
            } catch {
                progress.finish(.failure(error))
            }
        }
        let watch = Task {
            let clock = ContinuousClock()
            let started = clock.now
            while !progress.isFinished {
                try? await Task.sleep(for: .milliseconds(200))
                switch progress.phase {
                case .starting where clock.now - started > TestPatience.start:
                    progress.finish(
                        .failure(BoundedTestError("the application did not start within \(TestPatience.start)")),
                        abandoning: true)
                case .stopping(let since, let result) where clock.now - since > TestPatience.stop:
                    Issue.record(
                        "the application did not stop within \(TestPatience.stop) after its test",
                        sourceLocation: sourceLocation)
                    progress.finish(result, abandoning: true)
                default:
                    break
                }
            }
        }
        let result = await progress.result
        watch.cancel()
        if progress.wasAbandoned { running.cancel() }
        return try result.get()
    }
}

/// A test client whose every request must be answered within ``TestPatience/event``, or it
/// throws naming the request (the request is left to end on its own). Hummingbird's router
/// framework has no timeout at all, and a request waiting for a database connection that never
/// comes (seen with the shared cluster's connections exhausted) would hang its test for ever.
public struct BoundedClient: TestClientProtocol {
    public let base: any TestClientProtocol

    public var port: Int? { base.port }

    public func executeRequest(
        uri: String, method: HTTPRequest.Method, headers: HTTPFields, body: ByteBuffer?
    ) async throws -> TestResponse {
        let base = self.base
        return try await abandonAfter(TestPatience.event, "\(method) \(uri) to answer") {
            try await base.executeRequest(uri: uri, method: method, headers: headers, body: body)
        }
    }
}

public struct BoundedTestError: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}

/// Where a ``ApplicationProtocol/boundedTest(_:fileID:filePath:line:column:_:)`` is, and its one result.
public final class BoundedTestProgress<Value: Sendable>: Sendable {
    public enum Phase: Sendable {
        case starting
        case running
        case stopping(since: ContinuousClock.Instant, result: Result<Value, any Error>)
    }

    private let current = Mutex(Phase.starting)
    private let outcome = OneOutcome<Value>()
    /// Finished by the watch rather than by the application's own end.
    private let abandoned = Atomic(false)

    public var phase: Phase { current.withLock { $0 } }
    public var isFinished: Bool { outcome.isSettled }
    public var wasAbandoned: Bool { abandoned.load(ordering: .relaxed) }

    public func began() {
        current.withLock { if case .starting = $0 { $0 = .running } }
    }

    public func bodyEnded(_ result: Result<Value, any Error>) {
        current.withLock { $0 = .stopping(since: .now, result: result) }
    }

    /// The first call decides the result; later ones change nothing. `abandoning`: the watch
    /// gives up on an application that is still running.
    public func finish(_ result: Result<Value, any Error>, abandoning: Bool = false) {
        // Marked first, so that whoever is given the result sees it (cancelling an application
        // that ended meanwhile changes nothing).
        if abandoning, !outcome.isSettled { abandoned.store(true, ordering: .relaxed) }
        outcome.settle(result)
    }

    public var result: Result<Value, any Error> {
        get async {
            do { return .success(try await outcome.value) } catch { return .failure(error) }
        }
    }
}
