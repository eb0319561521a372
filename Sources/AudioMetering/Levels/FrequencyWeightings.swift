import Foundation

/// IEC 61672-1 A- and C-weighting for one channel, designed for the file's sample rate.
///
/// C is s² / ((s + ω1)² (s + ω4)²) and A is C times s² / ((s + ω2)(s + ω3)), with pole
/// frequencies 20.598997 (ω1), 107.65265 (ω2), 737.86223 (ω3) and 12194.217 Hz (ω4). Each analogue
/// section is one bilinear biquad (the 12194 Hz pair pre-warped, see ``IECWeightingPoles``); the
/// sections are linear and time-invariant, so they commute, and A is C's output through the middle
/// section: three biquads a sample give both. Each weighting is scaled to 0 dB at 1 kHz. LC − LA
/// is then exactly the middle section's response: 0 dB at 1 kHz, +25.4 dB at 63 Hz.
struct FrequencyWeightings: Sendable {
    private var low: Biquad
    private var high: Biquad
    private var middle: Biquad
    private let cGain: Double
    private let aGain: Double

    init(sampleRate: Double) {
        let w2 = IECWeightingPoles.radians(IECWeightingPoles.midLowHz)
        let w3 = IECWeightingPoles.radians(IECWeightingPoles.midHighHz)
        low = IECWeightingPoles.lowSection(sampleRate: sampleRate)
        high = IECWeightingPoles.highSection(sampleRate: sampleRate)
        middle = Biquad(analogNumerator: (1, 0, 0), denominator: (1, w2 + w3, w2 * w3), k: 2 * sampleRate)
        let w = 2 * Double.pi * 1000 / sampleRate
        let c = low.magnitude(atRadians: w) * high.magnitude(atRadians: w)
        cGain = 1 / c
        aGain = 1 / (c * middle.magnitude(atRadians: w))
    }

    /// The A- and C-weighted sample.
    @inline(__always)
    mutating func process(_ x: Double) -> (a: Double, c: Double) {
        let c = high.process(low.process(x))
        return (middle.process(c) * aGain, c * cGain)
    }

    /// |A(f)| and |C(f)| of the digital filters.
    func magnitudes(atHz frequency: Double, sampleRate: Double) -> (a: Double, c: Double) {
        let w = 2 * Double.pi * frequency / sampleRate
        let c = low.magnitude(atRadians: w) * high.magnitude(atRadians: w)
        return (c * middle.magnitude(atRadians: w) * aGain, c * cGain)
    }

    mutating func flushTinyState() {
        low.flushTinyState()
        high.flushTinyState()
        middle.flushTinyState()
    }
}
