import Foundation
import LoudnessCore

extension SplitMix64 {
    /// Normal deviate by the Box–Muller transform.
    mutating func normal(mean: Double = 0, sd: Double = 1) -> Double {
        let u1 = max(unit(), .leastNonzeroMagnitude)
        let u2 = unit()
        return mean + sd * (-2 * log(u1)).squareRoot() * cos(2 * .pi * u2)
    }

    /// Uniform double in `range`.
    mutating func double(in range: ClosedRange<Double>) -> Double {
        range.lowerBound + unit() * (range.upperBound - range.lowerBound)
    }

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
