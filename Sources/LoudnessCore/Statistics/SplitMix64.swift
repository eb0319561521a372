import Foundation

/// SplitMix64 (Steele, Lea and Flood 2014): a small, fast, seedable pseudo-random sequence, the
/// same on every run and machine, for the simulator, the load tests and the tests' random data
/// (a failure replays from its seed). Not for anything that must be unpredictable.
public struct SplitMix64: Sendable {
    private var state: UInt64

    public init(seed: UInt64) { state = seed }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// Uniform in [0, 1).
    public mutating func unit() -> Double { Double(next() >> 11) / Double(1 << 53) }

    /// Uniform integer in `range` (by remainder: the bias is negligible for small ranges).
    public mutating func int(in range: Range<Int>) -> Int {
        range.lowerBound + Int(next() % UInt64(range.count))
    }

    /// Uniform integer in `range`.
    public mutating func int(in range: ClosedRange<Int>) -> Int {
        range.lowerBound + Int(next() % UInt64(range.count))
    }

    /// True with probability `p`.
    public mutating func chance(_ p: Double) -> Bool { unit() < p }

    /// One of `items`, uniformly; `items` must not be empty.
    public mutating func pick<T>(_ items: [T]) -> T { items[int(in: 0..<items.count)] }

    /// A standard normal deviate, by the Box–Muller transform (one of the pair).
    public mutating func gaussian() -> Double {
        let u1 = max(unit(), .leastNonzeroMagnitude)
        let u2 = unit()
        return (-2 * log(u1)).squareRoot() * cos(2 * .pi * u2)
    }
}
