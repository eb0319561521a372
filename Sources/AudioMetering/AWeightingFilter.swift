import Foundation

/// IEC 61672-1 A-weighting for one channel, designed for the file's sample rate.
///
/// Analog prototype s⁴ / ((s + ω1)² (s + ω2)(s + ω3)(s + ω4)²) with pole frequencies 20.598997,
/// 107.65265, 737.86223 and 12194.217 Hz, mapped by the bilinear transform (the 12194 Hz pair
/// pre-warped, see ``IECWeightingPoles``), split into three biquads and scaled to 0 dB at 1 kHz.
struct AWeightingFilter: Sendable {
    private var lowPoles: Biquad
    private var midPoles: Biquad
    private var highPoles: Biquad

    init(sampleRate: Double) {
        let w2 = IECWeightingPoles.radians(IECWeightingPoles.midLowHz)
        let w3 = IECWeightingPoles.radians(IECWeightingPoles.midHighHz)
        lowPoles = IECWeightingPoles.lowSection(sampleRate: sampleRate)
        midPoles = Biquad(analogNumerator: (1, 0, 0), denominator: (1, w2 + w3, w2 * w3), k: 2 * sampleRate)
        highPoles = IECWeightingPoles.highSection(sampleRate: sampleRate)
        let gain = 1 / magnitude(atHz: 1000, sampleRate: sampleRate)
        lowPoles.b0 *= gain
        lowPoles.b1 *= gain
        lowPoles.b2 *= gain
    }

    @inline(__always)
    mutating func process(_ x: Double) -> Double {
        highPoles.process(midPoles.process(lowPoles.process(x)))
    }

    func magnitude(atHz frequency: Double, sampleRate: Double) -> Double {
        let w = 2 * Double.pi * frequency / sampleRate
        return lowPoles.magnitude(atRadians: w) * midPoles.magnitude(atRadians: w)
            * highPoles.magnitude(atRadians: w)
    }

    mutating func flushTinyState() {
        lowPoles.flushTinyState()
        midPoles.flushTinyState()
        highPoles.flushTinyState()
    }
}
