import AudioMetering
import CSndFile
import Testing

@Suite("Agreement with sox stats")
struct SoxComparisonTests {
    /// Noise whose level changes each second, with a louder left channel, so pooling matters.
    static func steppedNoise(sampleRate: Int, channels: Int, seconds: Double) -> [[Float]] {
        let frames = Int(Double(sampleRate) * seconds)
        return (0..<channels).map { channel in
            let noise = TestSignal.noise(amplitude: 1, count: frames, seed: UInt64(channel + 1))
            return noise.enumerated().map { n, x in
                let second = n / sampleRate
                return x * Float(TestSignal.amplitude(dBFS: -3 * Double(second + channel) - 1))
            }
        }
    }

    @Test(arguments: [
        (48000, 2, Int32(SF_FORMAT_WAV | SF_FORMAT_PCM_16)),
        (44100, 1, Int32(SF_FORMAT_WAV | SF_FORMAT_PCM_24)),
        (8000, 3, Int32(SF_FORMAT_WAV | SF_FORMAT_FLOAT)),
    ])
    func rmsAndPeakMatchSoxPerSecond(sampleRate: Int, channels: Int, format: Int32) throws {
        try #require(Sox.executable != nil, "sox is not on PATH; install it (make deps: apt-get install sox)")
        let signal = TestSignal.interleave(Self.steppedNoise(sampleRate: sampleRate, channels: channels, seconds: 4.6))
        let wav = try AudioEncoder.encode(signal, channelCount: channels, sampleRate: sampleRate, format: format)

        let result = try AudioMeter.measure(wav)

        #expect(result.samples.count == 5)
        for sample in result.samples {
            let sox = try Sox.stats(wav: wav, startFrame: sample.offsetSeconds * sampleRate, frameCount: sampleRate)
            #expect(abs(sample.averageDBFS - sox.rmsDB) < 0.05, "second \(sample.offsetSeconds)")
            #expect(abs(sample.peakDBFS - sox.peakDB) < 0.05, "second \(sample.offsetSeconds)")
        }
    }
}
