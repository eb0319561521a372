import CSndFile
import Foundation

/// Growable buffer that libsndfile writes an encoded file into through virtual I/O (nothing on disk).
/// Shared by the metering and server tests, which make their test audio with it.
public final class MemoryByteSink {
    public private(set) var bytes: [UInt8] = []
    private var position = 0

    public init() {}

    public static func virtualIO() -> SF_VIRTUAL_IO {
        SF_VIRTUAL_IO(
            get_filelen: { userData in sf_count_t(MemoryByteSink.sink(userData).bytes.count) },
            seek: { offset, whence, userData in MemoryByteSink.sink(userData).seek(Int(offset), whence: whence) },
            read: { destination, count, userData in
                MemoryByteSink.sink(userData).read(into: destination, count: Int(count))
            },
            write: { source, count, userData in MemoryByteSink.sink(userData).write(source, count: Int(count)) },
            tell: { userData in sf_count_t(MemoryByteSink.sink(userData).position) })
    }

    private static func sink(_ userData: UnsafeMutableRawPointer?) -> MemoryByteSink {
        Unmanaged<MemoryByteSink>.fromOpaque(userData!).takeUnretainedValue()
    }

    private func seek(_ offset: Int, whence: Int32) -> sf_count_t {
        let base = whence == SEEK_SET ? 0 : whence == SEEK_CUR ? position : bytes.count
        guard base + offset >= 0 else { return -1 }
        position = base + offset
        return sf_count_t(position)
    }

    private func read(into destination: UnsafeMutableRawPointer?, count: Int) -> sf_count_t {
        let available = min(count, max(0, bytes.count - position))
        guard available > 0, let destination else { return 0 }
        bytes.withUnsafeBytes { destination.copyMemory(from: $0.baseAddress! + position, byteCount: available) }
        position += available
        return sf_count_t(available)
    }

    private func write(_ source: UnsafeRawPointer?, count: Int) -> sf_count_t {
        guard count > 0, let source else { return 0 }
        if bytes.count < position + count { bytes += repeatElement(0, count: position + count - bytes.count) }
        bytes.withUnsafeMutableBytes { ($0.baseAddress! + position).copyMemory(from: source, byteCount: count) }
        position += count
        return sf_count_t(count)
    }
}
