import AudioMetering
import CSndFile
import Foundation
import Testing

@Suite("Per-second RMS and peak levels")
struct LevelTests {
    static let float32 = Int32(SF_FORMAT_WAV | SF_FORMAT_FLOAT)

    @Test func fullScaleSineReadsMinus3Point01RMSAndZeroPeak() throws {
        let sine = TestSignal.sine(hz: 1000, sampleRate: 48000, seconds: 3)

        let result = try meter([sine], sampleRate: 48000, format: Self.float32)

        #expect(result.samples.map(\.offsetSeconds) == [0, 1, 2])
        for sample in result.samples {
            #expect(abs(sample.averageDBFS - -3.0103) < 0.01)
            #expect(abs(sample.peakDBFS) < 0.01)
        }
    }

    @Test func sineAtMinus20DBFS() throws {
        let sine = TestSignal.sine(hz: 1000, dBFS: -20, sampleRate: 48000, seconds: 2)

        let result = try meter([sine], sampleRate: 48000)

        for sample in result.samples {
            #expect(abs(sample.averageDBFS - (-20 - sineCrestDB)) < 0.01)
            #expect(abs(sample.peakDBFS - -20) < 0.01)
        }
    }

    @Test func silentSecondChannelLowersPooledRMSBy3Point01() throws {
        let sine = TestSignal.sine(hz: 1000, sampleRate: 44100, seconds: 2)
        let silence = TestSignal.silence(sampleRate: 44100, seconds: 2)

        let result = try meter([sine, silence], sampleRate: 44100)

        #expect(result.format.channelCount == 2)
        for sample in result.samples {
            #expect(abs(sample.averageDBFS - (-sineCrestDB - sineCrestDB)) < 0.01)
            #expect(abs(sample.peakDBFS) < 0.01)
        }
    }

    /// Channels at 0, −6.02 and −12.04 dB plus three silent ones: mean square (0.5 + 0.125 + 0.03125) / 6.
    @Test func sixChannelsPoolTheirMeanSquares() throws {
        let channels = [1.0, 0.5, 0.25, 0, 0, 0].map { scale in
            TestSignal.sine(hz: 1000, sampleRate: 48000, seconds: 1).map { $0 * Float(scale) }
        }

        let result = try meter(channels, sampleRate: 48000, format: Self.float32)

        #expect(abs(result.samples[0].averageDBFS - 10 * log10(0.65625 / 6)) < 0.01)
        #expect(abs(result.samples[0].peakDBFS) < 0.01)
    }

    @Test func fullScaleSquareWaveReadsZeroRMS() throws {
        let square = TestSignal.square(hz: 100, sampleRate: 48000, seconds: 2)

        let result = try meter([square], sampleRate: 48000)

        for sample in result.samples {
            #expect(abs(sample.averageDBFS) < 0.01)
            #expect(abs(sample.peakDBFS) < 0.01)
        }
    }

    @Test func silenceReadsTheFloor() throws {
        let silence = TestSignal.silence(sampleRate: 16000, seconds: 2)

        let result = try meter([silence, silence], sampleRate: 16000)

        let floor = LevelSample.silenceFloorDBFS
        // Bands up to 6.3 kHz lie below Nyquist at 16 kHz; 8 and 10 kHz are absent.
        let bands = (0..<ThirdOctaveBands.count).map { $0 < 22 ? floor : nil }
        #expect(
            result.samples
                == [0, 1].map {
                    LevelSample(
                        offsetSeconds: $0, averageDBFS: floor, peakDBFS: floor, aWeightedDBFS: floor,
                        cWeightedDBFS: floor, bandsDBFS: bands)
                })
    }

    @Test(arguments: [8000, 16000, 44100, 48000, 96000])
    func sampleRates(sampleRate: Int) throws {
        let sine = TestSignal.sine(hz: 1000, dBFS: -6, sampleRate: sampleRate, seconds: 2)

        let result = try meter([sine], sampleRate: sampleRate, format: Self.float32)

        #expect(result.format.sampleRate == sampleRate)
        #expect(result.format.frameCount == 2 * sampleRate)
        #expect(result.format.durationSeconds == 2)
        #expect(result.samples.count == 2)
        for sample in result.samples {
            #expect(abs(sample.averageDBFS - (-6 - sineCrestDB)) < 0.01)
            #expect(abs(sample.peakDBFS - -6) < 0.01)
        }
    }
}
