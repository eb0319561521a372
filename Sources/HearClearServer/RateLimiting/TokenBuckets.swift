import Foundation
import Synchronization

/// Token buckets by key, in this process's memory: each instance limits on its own (with N
/// instances behind a balancer a client gets up to N times the rate; docs/OPERATIONS.md, "Rate limits").
/// Buckets full again are forgotten when there are many, so memory stays bounded by the keys
/// active within one refill period.
final class TokenBuckets: Sendable {
    private struct Bucket {
        var tokens: Double
        var updated: Double
    }

    private let buckets = Mutex<[String: Bucket]>([:])
    /// Keys held before full buckets are swept.
    let sweepAbove: Int

    init(sweepAbove: Int = 100_000) {
        self.sweepAbove = sweepAbove
    }

    /// Takes a token from `key`'s bucket under `limit` at `now` (seconds, any monotonic origin);
    /// nil when taken, else the seconds until one is there.
    func take(_ key: String, limit: RateLimit, now: Double) -> Double? {
        guard !limit.isOff else { return nil }
        let capacity = Double(limit.count)
        return buckets.withLock { buckets in
            var bucket = buckets[key] ?? Bucket(tokens: capacity, updated: now)
            bucket.tokens = min(capacity, bucket.tokens + max(0, now - bucket.updated) * limit.refillPerSecond)
            bucket.updated = now
            defer {
                buckets[key] = bucket
                if buckets.count > sweepAbove { Self.sweep(&buckets, limit: limit, now: now) }
            }
            guard bucket.tokens >= 1 else { return (1 - bucket.tokens) / limit.refillPerSecond }
            bucket.tokens -= 1
            return nil
        }
    }

    /// Gives back a token taken for something that turned out not to count (a resent check-in).
    func refund(_ key: String, limit: RateLimit) {
        guard !limit.isOff else { return }
        buckets.withLock { buckets in
            guard var bucket = buckets[key] else { return }
            bucket.tokens = min(Double(limit.count), bucket.tokens + 1)
            buckets[key] = bucket
        }
    }

    var count: Int { buckets.withLock { $0.count } }

    /// Forgets buckets that would be full by now (as if never used).
    private static func sweep(_ buckets: inout [String: Bucket], limit: RateLimit, now: Double) {
        let capacity = Double(limit.count)
        buckets = buckets.filter { _, bucket in
            bucket.tokens + (now - bucket.updated) * limit.refillPerSecond < capacity
        }
    }
}
