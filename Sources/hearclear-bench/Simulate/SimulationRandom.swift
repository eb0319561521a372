import Foundation

extension SplitMix64 {
    /// Normal deviate by the Box–Muller transform.
    mutating func normal(mean: Double = 0, sd: Double = 1) -> Double {
        let u1 = max(unit(), .leastNonzeroMagnitude)
        let u2 = unit()
        return mean + sd * (-2 * log(u1)).squareRoot() * cos(2 * .pi * u2)
    }

    /// Uniform integer in `range`.
    mutating func int(in range: Range<Int>) -> Int {
        range.lowerBound + Int(next() % UInt64(range.count))
    }

    /// Uniform double in `range`.
    mutating func double(in range: ClosedRange<Double>) -> Double {
        range.lowerBound + unit() * (range.upperBound - range.lowerBound)
    }

    /// True with probability `p`.
    mutating func chance(_ p: Double) -> Bool { unit() < p }

    mutating func pick<T>(_ items: [T]) -> T { items[int(in: 0..<items.count)] }

    /// Poisson deviate (Knuth's multiplication method; fine for the small means used here).
    mutating func poisson(_ mean: Double) -> Int {
        let limit = exp(-mean)
        var product = unit()
        var count = 0
        while product > limit {
            product *= unit()
            count += 1
        }
        return count
    }
}
