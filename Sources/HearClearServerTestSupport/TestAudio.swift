import AudioTestSupport
import CSndFile
import Foundation

/// Audio files for the meter's tests, encoded by libsndfile in memory.
public enum TestAudio {
    public static let wav16 = Int32(SF_FORMAT_WAV | SF_FORMAT_PCM_16)
    public static let flac16 = Int32(SF_FORMAT_FLAC | SF_FORMAT_PCM_16)

    /// A sine of `hz` at `dBFS` (peak), the same in every channel.
    public static func sine(
        hz: Double = 1000, dBFS: Double = 0, seconds: Double, sampleRate: Int = 48000, channels: Int = 1,
        format: Int32 = wav16
    ) throws -> Data {
        let amplitude = pow(10, dBFS / 20)
        let frames = Int((Double(sampleRate) * seconds).rounded())
        var interleaved = [Float](repeating: 0, count: frames * channels)
        for n in 0..<frames {
            let value = Float(amplitude * sin(2 * Double.pi * hz * Double(n) / Double(sampleRate)))
            for c in 0..<channels { interleaved[n * channels + c] = value }
        }
        return try encode(interleaved, channels: channels, sampleRate: sampleRate, format: format)
    }

    public static func silence(seconds: Double, sampleRate: Int = 8000) throws -> Data {
        let frames = Int((Double(sampleRate) * seconds).rounded())
        return try encode([Float](repeating: 0, count: frames), channels: 1, sampleRate: sampleRate, format: wav16)
    }

    /// `interleaved` holds `channels` samples per frame, full scale ±1.
    public static func encode(_ interleaved: [Float], channels: Int, sampleRate: Int, format: Int32) throws -> Data {
        try TestAudioEncoder.encode(interleaved, channels: channels, sampleRate: sampleRate, format: format)
    }
}
