import Foundation

/// Second-order IIR section in transposed direct form II, coefficients normalised so a0 = 1.
struct Biquad: Sendable {
    var b0: Double
    var b1: Double
    var b2: Double
    var a1: Double
    var a2: Double
    private var s1 = 0.0
    private var s2 = 0.0

    init(b0: Double, b1: Double, b2: Double, a1: Double, a2: Double) {
        (self.b0, self.b1, self.b2, self.a1, self.a2) = (b0, b1, b2, a1, a2)
    }

    /// Bilinear transform s = k·(1 − z⁻¹)/(1 + z⁻¹) of (n2·s² + n1·s + n0)/(d2·s² + d1·s + d0), k = 2·fs.
    init(analogNumerator n: (Double, Double, Double), denominator d: (Double, Double, Double), k: Double) {
        let k2 = k * k
        let a0 = d.0 * k2 + d.1 * k + d.2
        self.init(
            b0: (n.0 * k2 + n.1 * k + n.2) / a0,
            b1: 2 * (n.2 - n.0 * k2) / a0,
            b2: (n.0 * k2 - n.1 * k + n.2) / a0,
            a1: 2 * (d.2 - d.0 * k2) / a0,
            a2: (d.0 * k2 - d.1 * k + d.2) / a0)
    }

    @inline(__always)
    mutating func process(_ x: Double) -> Double {
        let y = b0 * x + s1
        s1 = b1 * x - a1 * y + s2
        s2 = b2 * x - a2 * y
        return y
    }

    /// |H(e^jω)| at `radians` per sample.
    func magnitude(atRadians w: Double) -> Double {
        let (c1, s1) = (cos(w), -sin(w))
        let (c2, s2) = (cos(2 * w), -sin(2 * w))
        let numerator = hypot(b0 + b1 * c1 + b2 * c2, b1 * s1 + b2 * s2)
        let denominator = hypot(1 + a1 * c1 + a2 * c2, a1 * s1 + a2 * s2)
        return numerator / denominator
    }

    /// Zeroes a decaying state before it turns subnormal, which would make silence slow to filter.
    mutating func flushTinyState() {
        if abs(s1) < 1e-200 { s1 = 0 }
        if abs(s2) < 1e-200 { s2 = 0 }
    }
}
