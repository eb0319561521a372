import Foundation

/// Test signals as Float samples, full scale ±1.
enum TestSignal {
    static func amplitude(dBFS: Double) -> Double { pow(10, dBFS / 20) }

    static func sine(hz: Double, dBFS: Double = 0, sampleRate: Int, seconds: Double) -> [Float] {
        let amplitude = amplitude(dBFS: dBFS)
        return (0..<frameCount(sampleRate, seconds)).map { n in
            Float(amplitude * sin(2 * Double.pi * hz * Double(n) / Double(sampleRate)))
        }
    }

    static func square(hz: Double, sampleRate: Int, seconds: Double) -> [Float] {
        (0..<frameCount(sampleRate, seconds)).map { n in
            Int(2 * hz * Double(n) / Double(sampleRate)).isMultiple(of: 2) ? 1 : -1
        }
    }

    static func silence(sampleRate: Int, seconds: Double) -> [Float] {
        Array(repeating: 0, count: frameCount(sampleRate, seconds))
    }

    /// Deterministic uniform noise in ±amplitude (linear congruential generator).
    static func noise(amplitude: Double, count: Int, seed: UInt64) -> [Float] {
        var state = seed
        return (0..<count).map { _ in
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Float(amplitude * (Double(state >> 11) / Double(1 << 53) * 2 - 1))
        }
    }

    /// Deterministic pink noise (power density ∝ 1/f): the uniform noise above through Paul
    /// Kellet's "refined" filter, within ±0.05 dB of −3 dB an octave from 9 Hz to Nyquist at
    /// 44.1 kHz, scaled to about `dBFS` RMS.
    static func pinkNoise(dBFS: Double, count: Int, seed: UInt64) -> [Float] {
        let white = noise(amplitude: 1, count: count, seed: seed)
        var b = [Double](repeating: 0, count: 7)
        var pink = [Double](repeating: 0, count: count)
        for (n, x) in white.enumerated() {
            let w = Double(x)
            b[0] = 0.99886 * b[0] + w * 0.0555179
            b[1] = 0.99332 * b[1] + w * 0.0750759
            b[2] = 0.96900 * b[2] + w * 0.1538520
            b[3] = 0.86650 * b[3] + w * 0.3104856
            b[4] = 0.55000 * b[4] + w * 0.5329522
            b[5] = -0.7616 * b[5] - w * 0.0168980
            pink[n] = b[0] + b[1] + b[2] + b[3] + b[4] + b[5] + b[6] + w * 0.5362
            b[6] = w * 0.115926
        }
        let rms = (pink.reduce(0) { $0 + $1 * $1 } / Double(max(1, count))).squareRoot()
        let gain = amplitude(dBFS: dBFS) / max(rms, 1e-12)
        return pink.map { Float($0 * gain) }
    }

    static func interleave(_ channels: [[Float]]) -> [Float] {
        let frames = channels[0].count
        var out = [Float](repeating: 0, count: frames * channels.count)
        for (c, channel) in channels.enumerated() {
            for n in 0..<frames { out[n * channels.count + c] = channel[n] }
        }
        return out
    }

    private static func frameCount(_ sampleRate: Int, _ seconds: Double) -> Int {
        Int((Double(sampleRate) * seconds).rounded())
    }
}
