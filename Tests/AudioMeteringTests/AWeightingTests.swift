import AudioMetering
import Testing

@Suite("IEC 61672 A-weighting by bilinear transform")
struct AWeightingTests {
    /// A-weighted minus unweighted level of a 3 s tone, per second.
    static func weighting(hz: Double, sampleRate: Int) throws -> [Double] {
        let tone = TestSignal.sine(hz: hz, dBFS: -10, sampleRate: sampleRate, seconds: 3)
        return try meter([tone, tone], sampleRate: sampleRate, format: LevelTests.float32).samples
            .map { $0.aWeightedDBFS - $0.averageDBFS }
    }

    @Test(arguments: [8000, 16000, 44100, 48000, 96000])
    func oneKilohertzIsUnweighted(sampleRate: Int) throws {
        for relative in try Self.weighting(hz: 1000, sampleRate: sampleRate) {
            #expect(abs(relative) < 0.2)
        }
    }

    @Test(arguments: [8000, 16000, 44100, 48000, 96000])
    func oneHundredHertzIsMinus19Point1(sampleRate: Int) throws {
        for relative in try Self.weighting(hz: 100, sampleRate: sampleRate) {
            #expect(abs(relative - -19.1) < 0.3)
        }
    }

    /// The bilinear transform pulls 10 kHz towards Nyquist; the 12194 Hz pole pair is pre-warped to
    /// be exact at fs/6 (IECWeightingPoles), which leaves −3.20 dB at 44.1 kHz, −2.94 at 48 and
    /// −2.09 at 96 (the digital filter's own response), against −2.49 dB analogue.
    @Test(arguments: [(44100, -3.20), (48000, -2.94), (96000, -2.09)])
    func tenKilohertzFollowsTheDigitalCurve(sampleRate: Int, expected: Double) throws {
        for relative in try Self.weighting(hz: 10000, sampleRate: sampleRate) {
            #expect(relative > -3.5 && relative < -1.5)
            #expect(abs(relative - expected) < 0.05)
        }
    }
}
