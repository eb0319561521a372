import AudioTestSupport
import CSndFile
import Foundation

/// Encodes test signals with libsndfile into memory.
enum AudioEncoder {
    static let wav16 = Int32(SF_FORMAT_WAV | SF_FORMAT_PCM_16)

    /// `interleaved` holds `channelCount` samples per frame, full scale ±1.
    static func encode(
        _ interleaved: [Float], channelCount: Int, sampleRate: Int, format: Int32 = wav16
    ) throws -> Data {
        try TestAudioEncoder.encode(interleaved, channels: channelCount, sampleRate: sampleRate, format: format)
    }

    /// Whether the installed libsndfile lists `majorFormat` (e.g. `SF_FORMAT_MPEG`).
    static func supports(majorFormat: Int32) -> Bool {
        var count: Int32 = 0
        sf_command(nil, Int32(SFC_GET_FORMAT_MAJOR_COUNT), &count, Int32(MemoryLayout<Int32>.size))
        return (0..<count).contains { index in
            var info = SF_FORMAT_INFO(format: index, name: nil, extension: nil)
            sf_command(nil, Int32(SFC_GET_FORMAT_MAJOR), &info, Int32(MemoryLayout<SF_FORMAT_INFO>.size))
            return info.format == majorFormat
        }
    }
}
