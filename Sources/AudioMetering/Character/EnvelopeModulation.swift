import Foundation

/// How the speech-band envelope of a window moves: the modulation at syllable rate (3–6 Hz, where
/// speech puts it, 4–5 Hz) against the modulation at beat rate (0.5–2.5 Hz, where music's pulse
/// lies, near 2 Hz), after Scheirer and Slaney (1997).
///
/// The envelope (one RMS amplitude per short frame, about 50 a second) is divided by its mean,
/// less 1, tapered with a Hann window, and its spectrum taken by a direct DFT every 0.05 Hz from
/// 0.5 to 6 Hz. Band powers are scaled (Parseval) to the mean square of the relative envelope's
/// part in each band: a level rising and falling by ±m at one rate gives m²/2 there.
enum EnvelopeModulation {
    struct Result: Equatable {
        /// Mean square of the relative envelope at 3–6 Hz over that at 0.5–2.5 Hz, dB.
        var ratioDB: Double
        /// RMS of the relative envelope between 0.5 and 6 Hz: 0.1 is a level moving by about ±14 %.
        var depth: Double
    }

    static let syllableHz = 3.0...6.0
    static let beatHz = 0.5...2.5
    static let stepHz = 0.05
    /// Shorter envelopes cannot resolve 0.5 Hz.
    static let minimumSeconds = 3.0

    /// Nil for an envelope shorter than ``minimumSeconds`` or without sound.
    static func measure(_ envelope: [Float], framesPerSecond rate: Double) -> Result? {
        let count = envelope.count
        guard Double(count) / rate >= minimumSeconds else { return nil }
        let mean = envelope.reduce(0.0) { $0 + Double($1) } / Double(count)
        guard mean > 1e-9 else { return nil }
        var tapered = [Double](repeating: 0, count: count)
        var windowEnergy = 0.0
        for (i, value) in envelope.enumerated() {
            let w = 0.5 - 0.5 * cos(2 * Double.pi * (Double(i) + 0.5) / Double(count))
            tapered[i] = (Double(value) / mean - 1) * w
            windowEnergy += w * w
        }
        var syllable = 0.0
        var beat = 0.0
        var all = 0.0
        let steps = Int(((syllableHz.upperBound - beatHz.lowerBound) / stepHz).rounded())
        for step in 0...steps {
            let hz = beatHz.lowerBound + Double(step) * stepHz
            let power = dftPower(tapered, atHz: hz, rate: rate)
            // Trapezoid ends: a band's end points count half.
            let inSyllable = syllableHz.contains(hz) ? (isEnd(hz, syllableHz) ? 0.5 : 1) : 0
            let inBeat = beatHz.contains(hz) ? (isEnd(hz, beatHz) ? 0.5 : 1) : 0
            let inAll = step == 0 || step == steps ? 0.5 : 1
            syllable += inSyllable * power
            beat += inBeat * power
            all += inAll * power
        }
        // Parseval for the DTFT: ∫ |Y(f)|² df over ±rate/2 = rate · Σ y², and Σ y² ≈ Σ w² · mean square.
        let scale = 2 * stepHz / (rate * windowEnergy)
        let ratio = 10 * log10(max(syllable, 1e-30) / max(beat, 1e-30))
        return Result(ratioDB: ratio, depth: (all * scale).squareRoot())
    }

    private static func isEnd(_ hz: Double, _ band: ClosedRange<Double>) -> Bool {
        abs(hz - band.lowerBound) < 1e-9 || abs(hz - band.upperBound) < 1e-9
    }

    /// |Σ y_t e^{−2πi f t / rate}|², by a rotating phasor.
    private static func dftPower(_ values: [Double], atHz hz: Double, rate: Double) -> Double {
        let step = -2 * Double.pi * hz / rate
        let (stepCos, stepSin) = (cos(step), sin(step))
        var (c, s) = (1.0, 0.0)
        var re = 0.0
        var im = 0.0
        for value in values {
            re += value * c
            im += value * s
            (c, s) = (c * stepCos - s * stepSin, c * stepSin + s * stepCos)
        }
        return re * re + im * im
    }
}
