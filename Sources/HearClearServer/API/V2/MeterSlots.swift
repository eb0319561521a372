import HearClearHTTP
import Metrics
import Synchronization

/// How many recordings `POST /api/v2/meter` meters at once (`--meter-max-concurrent`): each is
/// metered on a thread of its own, which holds a core for about a second per 10 minutes of audio
/// (several with the AudioSet model) and waits while its upload is slow. Past the cap a request is
/// answered 503 `busy` with `Retry-After` before its body is read, so that uploads cannot gather
/// threads without bound; the rate limits count requests per address, this counts them all.
final class MeterSlots: Sendable {
    let limit: Int
    private let taken = Mutex(0)
    private static let running = Gauge(label: "hearclear_meter_running")
    private static let refused = Counter(label: "hearclear_meter_busy_total")
    /// Seconds a refused client is told to wait.
    static let retryAfterSeconds = 2

    init(limit: Int) {
        self.limit = limit
    }

    /// Runs `body` in a slot, or throws the 503 when all are taken.
    func withSlot<T>(_ body: () async throws -> T) async throws -> T {
        let count = taken.withLock { count -> Int? in
            guard count < limit else { return nil }
            count += 1
            return count
        }
        guard let count else {
            Self.refused.increment()
            throw Problem(
                .serviceUnavailable, type: "busy", title: "Too many recordings being metered",
                detail:
                    "this server meters \(limit) recordings at once and all are taken; nothing was read; try again in \(Self.retryAfterSeconds) seconds",
                headers: [.retryAfter: String(Self.retryAfterSeconds)])
        }
        Self.running.record(count)
        defer {
            let left = taken.withLock { count -> Int in
                count -= 1
                return count
            }
            Self.running.record(left)
        }
        return try await body()
    }
}
