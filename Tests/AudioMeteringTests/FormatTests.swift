import AudioMetering
import CSndFile
import Testing

@Suite("Formats libsndfile decodes from memory")
struct FormatTests {
    struct Encoding: Sendable, CustomTestStringConvertible {
        var format: Int32
        var formatName: String
        /// Lossy codecs add noise and shift the signal (encoder delay), so they get a looser check.
        var toleranceDB: Double
        var testDescription: String { "\(formatName) 0x\(String(format, radix: 16))" }
    }

    static let lossless = [
        Encoding(format: Int32(SF_FORMAT_WAV | SF_FORMAT_PCM_16), formatName: "WAV", toleranceDB: 0.01),
        Encoding(format: Int32(SF_FORMAT_WAV | SF_FORMAT_PCM_24), formatName: "WAV", toleranceDB: 0.01),
        Encoding(format: Int32(SF_FORMAT_WAV | SF_FORMAT_PCM_32), formatName: "WAV", toleranceDB: 0.01),
        Encoding(format: Int32(SF_FORMAT_WAV | SF_FORMAT_FLOAT), formatName: "WAV", toleranceDB: 0.01),
        Encoding(format: Int32(SF_FORMAT_FLAC | SF_FORMAT_PCM_16), formatName: "FLAC", toleranceDB: 0.01),
        Encoding(format: Int32(SF_FORMAT_FLAC | SF_FORMAT_PCM_24), formatName: "FLAC", toleranceDB: 0.01),
    ]
    static let vorbis = Encoding(format: Int32(SF_FORMAT_OGG | SF_FORMAT_VORBIS), formatName: "OGG", toleranceDB: 0.3)
    static let mp3 = Encoding(
        format: Int32(SF_FORMAT_MPEG | SF_FORMAT_MPEG_LAYER_III), formatName: "MPEG", toleranceDB: 0.3)
    static let mp3Supported = AudioEncoder.supports(majorFormat: Int32(SF_FORMAT_MPEG))

    /// Stereo 1 kHz at −20 dBFS (RMS −23.01), 4 s, metered in the inner seconds.
    static func check(_ encoding: Encoding, sampleRate: Int = 48000) throws {
        let sine = TestSignal.sine(hz: 1000, dBFS: -20, sampleRate: sampleRate, seconds: 4)

        let result = try meter([sine, sine], sampleRate: sampleRate, format: encoding.format)

        #expect(result.format.formatName.contains(encoding.formatName))
        #expect(!result.format.encodingName.isEmpty)
        #expect(result.format.channelCount == 2)
        #expect(result.samples.count >= 4)
        for sample in result.samples[1...2] {
            #expect(abs(sample.averageDBFS - (-20 - sineCrestDB)) < encoding.toleranceDB)
            #expect(abs(sample.peakDBFS - -20) < 3 * encoding.toleranceDB)
            #expect(abs(sample.aWeightedDBFS - sample.averageDBFS) < 0.2)
        }
    }

    @Test(arguments: lossless)
    func losslessFormats(_ encoding: Encoding) throws {
        try Self.check(encoding)
    }

    @Test func oggVorbis() throws {
        try Self.check(Self.vorbis, sampleRate: 44100)
    }

    @Test(.enabled(if: mp3Supported, "this libsndfile has no MPEG support"))
    func mp3() throws {
        try Self.check(Self.mp3, sampleRate: 44100)
    }
}
