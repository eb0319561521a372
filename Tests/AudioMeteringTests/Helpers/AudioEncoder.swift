import AudioTestSupport
import CSndFile
import Foundation

/// Encodes test signals with libsndfile into memory.
enum AudioEncoder {
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    static let wav16 = Int32(SF_FORMAT_WAV | SF_FORMAT_PCM_16)

    /// `interleaved` holds `channelCount` samples per frame, full scale ±1.
    static func encode(
        _ interleaved: [Float], channelCount: Int, sampleRate: Int, format: Int32 = wav16
    ) throws -> Data {
        let sink = MemoryByteSink()
        var io = MemoryByteSink.virtualIO()
        var info = SF_INFO(
            frames: 0, samplerate: Int32(sampleRate), channels: Int32(channelCount), format: format,
            sections: 0, seekable: 0)
        guard sf_format_check(&info) == Int32(SF_TRUE) else {
            throw Failure(description: "bad format 0x\(String(format, radix: 16))")
        }
        guard let handle = sf_open_virtual(&io, Int32(SFM_WRITE), &info, Unmanaged.passUnretained(sink).toOpaque())
        else { throw Failure(description: String(cString: sf_strerror(nil))) }
        // Without clipping, 1.0 written to 32-bit integer PCM wraps round to −1.
        sf_command(handle, Int32(SFC_SET_CLIPPING), nil, Int32(SF_TRUE))
        let frames = interleaved.count / channelCount
        let written = interleaved.withUnsafeBufferPointer {
            sf_writef_float(handle, $0.baseAddress, sf_count_t(frames))
        }
        let message = String(cString: sf_strerror(handle))
        guard sf_close(handle) == 0, written == frames else { throw Failure(description: message) }
        return Data(sink.bytes)
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
