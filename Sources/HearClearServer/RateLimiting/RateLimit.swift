import Foundation

/// A token bucket's size and refill, written `N/s`, `N/min` or `N/h` (e.g. `20/h`): at most N at
/// once, and N more over each period, one at a time (a bucket of N refilled at N per period).
/// `0` or `off` is no limit.
public struct RateLimit: Sendable, Equatable, CustomStringConvertible {
    public var count: Int
    public var periodSeconds: Double

    public init(count: Int, periodSeconds: Double) {
        self.count = count
        self.periodSeconds = periodSeconds
    }

    /// No limit.
    public static let off = RateLimit(count: 0, periodSeconds: 1)

    public var isOff: Bool { count == 0 }

    /// Tokens a second.
    public var refillPerSecond: Double { Double(count) / periodSeconds }

    /// Parses `N/s`, `N/min`, `N/h` (N from 1 to 1,000,000), `0` or `off`; nil otherwise.
    public init?(_ text: String) {
        let text = text.trimmingCharacters(in: .whitespaces).lowercased()
        if text == "0" || text == "off" {
            self = .off
            return
        }
        let parts = text.split(separator: "/")
        guard parts.count == 2, let count = Int(parts[0]), (1...1_000_000).contains(count) else { return nil }
        let period: Double
        switch parts[1] {
        case "s", "sec", "second": period = 1
        case "min", "minute": period = 60
        case "h", "hour": period = 3_600
        default: return nil
        }
        self.init(count: count, periodSeconds: period)
    }

    public var description: String {
        if isOff { return "off" }
        let unit = periodSeconds == 1 ? "s" : periodSeconds == 60 ? "min" : "h"
        return "\(count)/\(unit)"
    }
}
