import CSndFile
import Foundation

/// libsndfile reports a failed open only through a process-wide error slot (`sf_strerror(NULL)`),
/// so opening and reading that message must not interleave between threads.
private let failedOpenMessageLock = NSLock()

/// A libsndfile handle decoding from memory (or, for the CLI, a file); closed when it goes out of scope.
struct MemorySoundFile: ~Copyable {
    let info: SF_INFO
    private let handle: OpaquePointer
    /// What the virtual I/O reads from; kept alive while the handle is open.
    private let source: AnyObject

    init(reading bytes: Data) throws(AudioMeteringError) {
        let source = MemoryByteSource(bytes)
        var io = MemoryByteSource.virtualIO()
        let userData = Unmanaged.passUnretained(source).toOpaque()
        (handle, info) = try Self.open(lockingOpen: true) { sf_open_virtual(&io, Int32(SFM_READ), &$0, userData) }
        self.source = source
    }

    /// Opens a recording whose bytes are still arriving (see ``AudioByteStream``).
    init(streaming stream: AudioByteStream) throws(AudioMeteringError) {
        let source = StreamByteSource(stream)
        var io = StreamByteSource.virtualIO()
        let userData = Unmanaged.passUnretained(source).toOpaque()
        (handle, info) = try Self.open(lockingOpen: false) { sf_open_virtual(&io, Int32(SFM_READ), &$0, userData) }
        self.source = source
    }

    /// Opens a file on disk, which libsndfile reads (and seeks in) itself, a buffer at a time.
    init(path: String) throws(AudioMeteringError) {
        (handle, info) = try Self.open(lockingOpen: true) { sf_open(path, Int32(SFM_READ), &$0) }
        source = path as NSString
    }

    /// `lockingOpen`: the open itself under the message's lock, so that no other failed open
    /// replaces the message. A stream's open may wait for its header from the network, which must
    /// not hold up every other open: its message is read under the lock just after (another
    /// thread's failure in between could replace it).
    private static func open(
        lockingOpen: Bool, _ opening: (inout SF_INFO) -> OpaquePointer?
    ) throws(AudioMeteringError) -> (OpaquePointer, SF_INFO) {
        var info = SF_INFO()
        let handle: OpaquePointer?
        let message: String
        if lockingOpen {
            (handle, message) = failedOpenMessageLock.withLock {
                guard let handle = opening(&info) else {
                    return (OpaquePointer?.none, String(cString: sf_strerror(nil)))
                }
                return (handle, "")
            }
        } else {
            handle = opening(&info)
            message = handle == nil ? failedOpenMessageLock.withLock { String(cString: sf_strerror(nil)) } : ""
        }
        guard let handle else { throw .unreadable(libsndfileMessage: message) }
        return (handle, info)
    }

    deinit {
        sf_close(handle)
    }

    /// Frame count from the header, or nil where the format does not say.
    var headerFrameCount: Int? {
        info.frames >= 0 && info.frames < sf_count_t.max ? Int(info.frames) : nil
    }

    /// The container, as `SF_FORMAT_TYPEMASK` picks it out of ``info``.
    var formatType: Int32 { info.format & Int32(SF_FORMAT_TYPEMASK) }

    var formatName: String { Self.name(ofFormat: formatType) }
    var encodingName: String { Self.name(ofFormat: info.format & Int32(SF_FORMAT_SUBMASK)) }

    /// Reads up to `frameCount` interleaved float frames (full scale ±1); 0 at the end.
    func readFrames(into buffer: UnsafeMutablePointer<Float>, frameCount: Int) throws(AudioMeteringError) -> Int {
        let read = sf_readf_float(handle, buffer, sf_count_t(frameCount))
        guard read >= 0, sf_error(handle) == SF_ERR_NO_ERROR else {
            throw .decodingFailed(libsndfileMessage: String(cString: sf_strerror(handle)))
        }
        return Int(read)
    }

    private static func name(ofFormat format: Int32) -> String {
        var formatInfo = SF_FORMAT_INFO(format: format, name: nil, extension: nil)
        let size = Int32(MemoryLayout<SF_FORMAT_INFO>.size)
        guard sf_command(nil, Int32(SFC_GET_FORMAT_INFO), &formatInfo, size) == 0, let name = formatInfo.name
        else { return "unknown (0x\(String(format, radix: 16)))" }
        return String(cString: name)
    }
}
