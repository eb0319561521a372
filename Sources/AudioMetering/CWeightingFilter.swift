import Foundation

/// IEC 61672-1 C-weighting for one channel, designed for the file's sample rate like
/// ``AWeightingFilter``.
///
/// Analog prototype s² / ((s + ω1)² (s + ω4)²), the A-weighting without its two middle poles
/// (20.598997 and 12194.217 Hz), as two bilinear biquads (the 12194 Hz pair pre-warped, see
/// ``IECWeightingPoles``) scaled to 0 dB at 1 kHz. Sharing A's sections means LC − LA is exactly
/// the two middle poles' response: 0 dB at 1 kHz, +25.4 dB at 63 Hz.
struct CWeightingFilter: Sendable {
    private var lowPoles: Biquad
    private var highPoles: Biquad

    init(sampleRate: Double) {
        lowPoles = IECWeightingPoles.lowSection(sampleRate: sampleRate)
        highPoles = IECWeightingPoles.highSection(sampleRate: sampleRate)
        let gain = 1 / magnitude(atHz: 1000, sampleRate: sampleRate)
        lowPoles.b0 *= gain
        lowPoles.b1 *= gain
        lowPoles.b2 *= gain
    }

    @inline(__always)
    mutating func process(_ x: Double) -> Double {
        highPoles.process(lowPoles.process(x))
    }

    func magnitude(atHz frequency: Double, sampleRate: Double) -> Double {
        let w = 2 * Double.pi * frequency / sampleRate
        return lowPoles.magnitude(atRadians: w) * highPoles.magnitude(atRadians: w)
    }

    mutating func flushTinyState() {
        lowPoles.flushTinyState()
        highPoles.flushTinyState()
    }
}
