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
