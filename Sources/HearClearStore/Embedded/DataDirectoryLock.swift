import Foundation
import HearClearModel

#if canImport(Glibc)
    import Glibc
#endif

/// An exclusive `flock` on `<data-dir>/hearclear.lock`, held for the life of a server.
///
/// The kernel drops the lock when the process dies, so a crash never leaves the directory
/// locked; a second server on the same directory is refused with the holder's pid.
final class DataDirectoryLock: Sendable {
    private let descriptor: Int32

    init(directory: String) throws {
        let path = directory + "/hearclear.lock"
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else {
            throw EmbeddedPostgresError.startFailed("cannot open \(path): \(String(cString: strerror(errno)))")
        }
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
            var buffer = [UInt8](repeating: 0, count: 64)
            let count = pread(fd, &buffer, 63, 0)
            let holder = count > 0 ? String(decoding: buffer[0..<count], as: UTF8.self) : "unknown"
            close(fd)
            throw EmbeddedPostgresError.alreadyRunning(
                dataDirectory: directory,
                holder: "pid \(holder.trimmingCharacters(in: .whitespacesAndNewlines))"
            )
        }
        let pid = Array("\(getpid())\n".utf8)
        _ = ftruncate(fd, 0)
        _ = pwrite(fd, pid, pid.count, 0)
        self.descriptor = fd
    }

    func release() {
        flock(descriptor, LOCK_UN)
        close(descriptor)
    }
}
