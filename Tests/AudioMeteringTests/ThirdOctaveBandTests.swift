import AudioMetering
import CSndFile
import Foundation
import Testing

/// Third-octave band levels: FFT approximations of base-10 bands 50 Hz … 10 kHz.
@Suite("Third-octave band levels")
struct ThirdOctaveBandTests {
    @Test func bandsAreBaseTenThirdOctavesFrom50HzTo10kHz() {
        #expect(ThirdOctaveBands.nominalCentresHz.count == 24)
        #expect(ThirdOctaveBands.nominalCentresHz.first == 50 && ThirdOctaveBands.nominalCentresHz.last == 10000)
        for index in 0..<ThirdOctaveBands.count {
            let centre = ThirdOctaveBands.centreHz(index)
            let (lower, upper) = ThirdOctaveBands.edgesHz(index)
            #expect(abs(centre / Double(ThirdOctaveBands.nominalCentresHz[index]) - 1) < 0.03)
            #expect(abs(upper / lower - pow(10, 0.1)) < 1e-9)
            if index > 0 { #expect(abs(lower - ThirdOctaveBands.edgesHz(index - 1).upper) < 1e-9) }
        }
        #expect(abs(ThirdOctaveBands.centreHz(23) - 10000) < 1e-6)
    }

    /// Mean band power over the seconds, dB, per band (nil above Nyquist).
    static func meanBandLevels(_ samples: [LevelSample]) -> [Double?] {
        (0..<ThirdOctaveBands.count).map { band in
            let levels = samples.compactMap { $0.bandsDBFS[band] }
            guard !levels.isEmpty else { return nil }
            return 10 * log10(levels.reduce(0) { $0 + pow(10, $1 / 10) } / Double(levels.count))
        }
    }

    /// Pink noise has the same power in every third octave: each band within 1 dB of their mean.
    @Test(arguments: [44100, 48000])
    func pinkNoiseIsFlat(sampleRate: Int) throws {
        let pink = TestSignal.pinkNoise(dBFS: -20, count: 30 * sampleRate, seed: 11)

        let result = try meter([pink], sampleRate: sampleRate, format: LevelTests.float32)

        let levels = Self.meanBandLevels(result.samples).map { try! #require($0) }
        let mean = levels.reduce(0, +) / Double(levels.count)
        for (band, level) in levels.enumerated() {
            #expect(
                abs(level - mean) <= 1, "\(ThirdOctaveBands.nominalCentresHz[band]) Hz: \(level) against \(mean)")
        }
    }

    /// A sine at a band's centre reads in that band what sox reads as the file's RMS level, every
    /// second, and every other band is at least 25 dB lower.
    @Test(
        arguments: [
            (63.0957, 48000, 1), (251.189, 48000, 1), (1000.0, 48000, 1), (5011.87, 48000, 1), (125.893, 44100, 2),
            (3162.28, 44100, 2), (50.1187, 16000, 1), (1584.89, 8000, 1),
        ])
    func sineBandMatchesSox(hz: Double, sampleRate: Int, channels: Int) throws {
        try #require(Sox.executable != nil, "sox is not on PATH; install it (make deps: apt-get install sox)")
        let tone = TestSignal.sine(hz: hz, dBFS: -12, sampleRate: sampleRate, seconds: 4)
        let wav = try AudioEncoder.encode(
            TestSignal.interleave(Array(repeating: tone, count: channels)), channelCount: channels,
            sampleRate: sampleRate, format: Int32(SF_FORMAT_WAV | SF_FORMAT_PCM_24))
        let band = try #require(
            (0..<ThirdOctaveBands.count).first { abs(ThirdOctaveBands.centreHz($0) / hz - 1) < 0.01 })

        let result = try AudioMeter.measure(wav)

        #expect(result.samples.count == 4)
        for sample in result.samples {
            let sox = try Sox.stats(wav: wav, startFrame: sample.offsetSeconds * sampleRate, frameCount: sampleRate)
            let level = try #require(sample.bandsDBFS[band])
            #expect(abs(level - sox.rmsDB) < 0.1, "second \(sample.offsetSeconds): \(level) against sox \(sox.rmsDB)")
            for (other, otherLevel) in sample.bandsDBFS.enumerated() where other != band {
                #expect((otherLevel ?? -200) < level - 25, "band \(ThirdOctaveBands.nominalCentresHz[other]) Hz")
            }
        }
    }

    /// A band is reported only when its upper edge is at or below Nyquist.
    @Test(arguments: [(8000, 3150), (16000, 6300), (22050, 8000), (44100, 10000)])
    func bandsAboveNyquistAreAbsent(sampleRate: Int, highest: Int) throws {
        let noise = TestSignal.noise(amplitude: 0.3, count: 2 * sampleRate, seed: 3)

        let result = try meter([noise], sampleRate: sampleRate, format: LevelTests.float32)

        let last = try #require(ThirdOctaveBands.index(ofNominal: highest))
        for sample in result.samples {
            #expect(sample.bandsDBFS.count == 24)
            #expect(sample.bandsDBFS[...last].allSatisfy { $0 != nil })
            #expect(sample.bandsDBFS[(last + 1)...].allSatisfy { $0 == nil })
        }
    }

    /// A 2 kHz tone that starts at 2 s: the short frames put it in its seconds (smeared by ±20 ms,
    /// it shows in the second before at about −27 dB); a 63 Hz one (long frames, ±250 ms) shows
    /// there at about −16 dB.
    @Test func toneStartingAtTwoSecondsLandsInItsSeconds() throws {
        let rate = 48000
        func stepped(_ hz: Double) -> [Float] {
            TestSignal.silence(sampleRate: rate, seconds: 2)
                + TestSignal.sine(hz: hz, dBFS: -20, sampleRate: rate, seconds: 2)
        }
        let result = try meter([stepped(1995.26), stepped(63.0957)], sampleRate: rate, format: LevelTests.float32)
        let high = try #require(ThirdOctaveBands.index(ofNominal: 2000))
        let low = try #require(ThirdOctaveBands.index(ofNominal: 63))
        // Two channels, one silent in each band: the pooled level is the tone's less 3.01 dB.
        let expected = -20 - sineCrestDB - sineCrestDB

        let levels = result.samples.map { ($0.bandsDBFS[high] ?? -200, $0.bandsDBFS[low] ?? -200) }
        #expect(levels[0].0 < expected - 60 && levels[0].1 < expected - 60)
        #expect(levels[1].0 < expected - 25)
        #expect(levels[1].1 < expected - 14)
        #expect(abs(levels[2].0 - expected) < 0.1 && abs(levels[3].0 - expected) < 0.05)
        #expect(abs(levels[2].1 - expected) < 1 && abs(levels[3].1 - expected) < 0.1)
    }

    @Test func silenceReadsTheFloorInEveryBand() throws {
        let result = try meter([TestSignal.silence(sampleRate: 48000, seconds: 2)], sampleRate: 48000)

        for sample in result.samples {
            #expect(sample.bandsDBFS.allSatisfy { $0 == LevelSample.silenceFloorDBFS })
        }
    }
}
