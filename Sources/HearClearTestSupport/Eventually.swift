/// Polls `probe` every 50 ms until it returns a value, for at most `limit`; throws
/// ``EventuallyTimeout`` naming `what` after that. The limit bounds a hang: what a test decides
/// by is the value, never how soon it came.
public func eventually<T>(
    within limit: Duration = TestPatience.event, _ what: String, _ probe: () async throws -> T?
) async throws -> T {
    let clock = ContinuousClock()
    let deadline = clock.now + limit
    while true {
        if let value = try await probe() { return value }
        guard clock.now < deadline else { throw EventuallyTimeout(what: what, limit: limit) }
        try await Task.sleep(for: .milliseconds(50))
    }
}

public struct EventuallyTimeout: Error, CustomStringConvertible {
    public let what: String
    public let limit: Duration
    public var description: String { "timed out waiting for \(what) (\(limit))" }
}
