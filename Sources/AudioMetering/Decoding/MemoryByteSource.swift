import CSndFile
import Foundation

/// Bytes that libsndfile reads through its virtual I/O callbacks, so audio never touches disk.
///
/// The callbacks are C function pointers and cannot capture; each one recovers this object from
/// libsndfile's `user_data` pointer. The owner keeps the object alive while the handle is open.
final class MemoryByteSource {
    private let bytes: Data
    private var position = 0

    init(_ bytes: Data) {
        self.bytes = bytes
    }

    static func virtualIO() -> SF_VIRTUAL_IO {
        SF_VIRTUAL_IO(
            get_filelen: { userData in sf_count_t(MemoryByteSource.source(userData).bytes.count) },
            seek: { offset, whence, userData in MemoryByteSource.source(userData).seek(Int(offset), whence: whence) },
            read: { destination, count, userData in
                MemoryByteSource.source(userData).read(into: destination, count: Int(count))
            },
            write: { _, _, _ in 0 },
            tell: { userData in sf_count_t(MemoryByteSource.source(userData).position) })
    }

    private static func source(_ userData: UnsafeMutableRawPointer?) -> MemoryByteSource {
        Unmanaged<MemoryByteSource>.fromOpaque(userData!).takeUnretainedValue()
    }

    private func seek(_ offset: Int, whence: Int32) -> sf_count_t {
        let base: Int
        switch whence {
        case SEEK_SET: base = 0
        case SEEK_CUR: base = position
        case SEEK_END: base = bytes.count
        default: return -1
        }
        guard base + offset >= 0 else { return -1 }
        position = base + offset
        return sf_count_t(position)
    }

    private func read(into destination: UnsafeMutableRawPointer?, count: Int) -> sf_count_t {
        let available = min(max(0, count), max(0, bytes.count - position))
        guard available > 0, let destination else { return 0 }
        bytes.withUnsafeBytes { source in
            destination.copyMemory(from: source.baseAddress! + position, byteCount: available)
        }
        position += available
        return sf_count_t(available)
    }
}
