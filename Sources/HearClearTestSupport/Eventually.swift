/// Polls `probe` every 50 ms until it returns a value, for at most `limit`; throws
/// ``EventuallyTimeout`` naming `what` after that.
public func eventually<T>(
    within limit: Duration = .seconds(10), _ what: String, _ probe: () async throws -> T?
) async throws -> T {
    let deadline = ContinuousClock.now + limit
    while true {
        if let value = try await probe() { return value }
        guard ContinuousClock.now < deadline else { throw EventuallyTimeout(what: what) }
        try await Task.sleep(for: .milliseconds(50))
    }
}

public struct EventuallyTimeout: Error, CustomStringConvertible {
    public let what: String
    public var description: String { "timed out waiting for \(what)" }
}
