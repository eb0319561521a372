import CSndFile
import Foundation

/// Encodes test signals with libsndfile into memory (``MemoryByteSink``), for the metering and
/// server tests.
public enum TestAudioEncoder {
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    /// `interleaved` holds `channels` samples per frame, full scale ±1; `format` is an
    /// `SF_FORMAT_*` combination.
    public static func encode(_ interleaved: [Float], channels: Int, sampleRate: Int, format: Int32) throws -> Data {
        let sink = MemoryByteSink()
        var io = MemoryByteSink.virtualIO()
        var info = SF_INFO(
            frames: 0, samplerate: Int32(sampleRate), channels: Int32(channels), format: format, sections: 0,
            seekable: 0)
        guard sf_format_check(&info) == Int32(SF_TRUE) else {
            throw Failure(description: "bad format 0x\(String(format, radix: 16))")
        }
        guard let handle = sf_open_virtual(&io, Int32(SFM_WRITE), &info, Unmanaged.passUnretained(sink).toOpaque())
        else { throw Failure(description: String(cString: sf_strerror(nil))) }
        // Without clipping, full scale (1.0) written to integer PCM wraps round to −1.
        sf_command(handle, Int32(SFC_SET_CLIPPING), nil, Int32(SF_TRUE))
        let frames = interleaved.count / channels
        let written = interleaved.withUnsafeBufferPointer {
            sf_writef_float(handle, $0.baseAddress, sf_count_t(frames))
        }
        let message = String(cString: sf_strerror(handle))
        guard sf_close(handle) == 0, written == frames else { throw Failure(description: message) }
        return Data(sink.bytes)
    }
}
