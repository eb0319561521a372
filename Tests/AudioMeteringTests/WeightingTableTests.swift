import AudioMetering
import Foundation
import Testing

/// A- and C-weighting against the IEC 61672-1 table (Table 3) at the octave centres, and LC − LA.
@Suite("IEC 61672 A- and C-weighting at the octave centres")
struct WeightingTableTests {
    /// Nominal octave centre, exact base-10 frequency, A and C from IEC 61672-1 (dB, to 0.1).
    static let table: [(nominal: Int, hz: Double, a: Double, c: Double)] = [
        (31, pow(10, 1.5), -39.4, -3.0), (63, pow(10, 1.8), -26.2, -0.8), (125, pow(10, 2.1), -16.1, -0.2),
        (250, pow(10, 2.4), -8.6, 0.0), (500, pow(10, 2.7), -3.2, 0.0), (1000, 1000, 0.0, 0.0),
        (2000, pow(10, 3.3), 1.2, -0.2), (4000, pow(10, 3.6), 1.0, -0.8), (8000, pow(10, 3.9), -1.1, -3.0),
        (16000, pow(10, 4.2), -6.6, -8.5),
    ]

    /// Weighted minus unweighted level of a 3 s tone, second by second: (A, C).
    static func weightings(hz: Double, sampleRate: Int) throws -> [(a: Double, c: Double)] {
        let tone = TestSignal.sine(hz: hz, dBFS: -10, sampleRate: sampleRate, seconds: 3)
        return try meter([tone], sampleRate: sampleRate, format: LevelTests.float32).samples
            .map { ($0.aWeightedDBFS - $0.averageDBFS, $0.cWeightedDBFS - $0.averageDBFS) }
    }

    /// Octave centres up to 8 kHz at 44.1 and 48 kHz (16 kHz at 96 kHz); up to 4 kHz at 16 kHz.
    @Test(arguments: [16000, 44100, 48000, 96000])
    func octaveCentresWithinHalfADecibel(sampleRate: Int) throws {
        let top = sampleRate >= 96000 ? 16000 : sampleRate >= 44100 ? 8000 : 4000
        for row in Self.table where row.nominal <= top {
            for (second, measured) in try Self.weightings(hz: row.hz, sampleRate: sampleRate).enumerated() {
                #expect(abs(measured.a - row.a) <= 0.5, "A at \(row.nominal) Hz, \(sampleRate) Hz, second \(second)")
                #expect(abs(measured.c - row.c) <= 0.5, "C at \(row.nominal) Hz, \(sampleRate) Hz, second \(second)")
            }
        }
    }

    @Test(arguments: [8000, 44100, 48000])
    func aOneKilohertzSineHasNoCMinusA(sampleRate: Int) throws {
        let result = try meter(
            [TestSignal.sine(hz: 1000, dBFS: -20, sampleRate: sampleRate, seconds: 3)], sampleRate: sampleRate,
            format: LevelTests.float32)

        for sample in result.samples {
            #expect(abs(sample.cWeightedDBFS - sample.aWeightedDBFS) < 0.1)
            #expect(abs(sample.cWeightedDBFS - sample.averageDBFS) < 0.1)
        }
        #expect(abs((result.character.medianLcMinusLaDB ?? 99) - 0) < 0.1)
    }

    /// At 63 Hz A is −26.2 dB and C −0.8 dB: LC − LA = +25.4 dB.
    @Test(arguments: [8000, 44100, 48000])
    func a63HertzSineReadsLCMinusLAOf25(sampleRate: Int) throws {
        let result = try meter(
            [TestSignal.sine(hz: pow(10, 1.8), dBFS: -20, sampleRate: sampleRate, seconds: 3)],
            sampleRate: sampleRate, format: LevelTests.float32)

        for sample in result.samples {
            #expect(abs(sample.cWeightedDBFS - sample.aWeightedDBFS - 25.4) < 0.3)
        }
        #expect(abs((result.character.medianLcMinusLaDB ?? 0) - 25.4) < 0.3)
    }
}
