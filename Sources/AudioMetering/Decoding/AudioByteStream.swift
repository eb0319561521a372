import CSndFile
import Foundation

/// The bytes of one recording as they arrive (an HTTP body, a file read piece by piece): a producer
/// appends them, and libsndfile, decoding on its own thread (``AudioMeter/measure(_:maxDuration:rules:model:learnedRules:)``
/// with a stream), reads them through virtual I/O, waiting for bytes not yet there.
///
/// What is kept depends on the phase (``Mode``):
///
/// * **Opening**: every byte from the start, as libsndfile reads the header, seeks past the audio
///   data to look for chunks after it, and seeks back. A seek moves the position only; only a
///   read waits for the bytes. At most ``bufferedLimit`` bytes.
/// * **Sequential** (WAV, WAVEX, W64, RF64, AIFF, AU, FLAC once opened: libsndfile reads their
///   audio front to back): only ``keptBehind`` bytes behind the decoder's position and at most
///   ``readAhead`` bytes ahead of it; a producer further ahead waits (``room()``), so memory does
///   not grow with the recording. At most ``streamedLimit`` bytes in all.
/// * **Buffered** (Ogg, MP3 and every other container, whose decoders seek back and forth): every
///   byte, at most ``bufferedLimit``.
///
/// With no declared length (a chunked upload) libsndfile still needs one at open: a WAV's or
/// AIFF's is read from its header (up to the end of its data chunk), a FLAC's is taken as
/// unbounded (its decoder never seeks on reading), and any other format is buffered whole first.
///
/// Thread-safe: one producer and one decoder, each on its own thread or task.
public final class AudioByteStream: @unchecked Sendable {
    public enum Mode: Sendable, Equatable {
        case opening, sequential, buffered
    }

    /// Kept behind the decoder's position for a small seek back.
    static let keptBehind = 64 << 10
    /// Kept ahead of the decoder: the producer waits beyond it.
    public static let readAhead = 1 << 20
    /// A length libsndfile is told when it has none: no real recording reaches it.
    static let unboundedLength = 1 << 46

    public let declaredLength: Int?
    /// Most bytes kept at once while opening or buffered.
    public let bufferedLimit: Int
    /// Most bytes of a sequentially read recording.
    public let streamedLimit: Int

    private let condition = NSCondition()
    private var storage: [UInt8] = []
    /// Offset in the recording of `storage[0]`.
    private var storageStart = 0
    private var received = 0
    private var ended = false
    private var failure: AudioMeteringError?
    private var readingClosed = false
    private var position = 0
    /// Where the last read ended: what the producer's lead is measured from (a seek past the
    /// data while opening moves the position, not this).
    private var readEnd = 0
    /// While the decoder waits: the bytes it waits for (`.max`: the end); 0 otherwise.
    private var wanted = 0
    private var decoderLength: Int?
    private var roomWaiter: CheckedContinuation<Void, Never>?
    private(set) var mode = Mode.opening
    /// The most bytes held at once (for tests and benchmarks).
    private var peakHeld = 0

    public init(declaredLength: Int?, bufferedLimit: Int, streamedLimit: Int) {
        self.declaredLength = declaredLength
        self.bufferedLimit = bufferedLimit
        self.streamedLimit = streamedLimit
    }

    // MARK: Producer

    /// Adds the next bytes. Throws ``AudioMeteringError/tooLarge(bytes:limitBytes:buffered:)`` past a
    /// limit (the decoder then sees the end); returns false once the decoder has stopped reading (the
    /// rest of the recording is not needed: it failed, or is past its limit).
    @discardableResult
    public func append(_ bytes: UnsafeRawBufferPointer) throws(AudioMeteringError) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        guard !readingClosed else { return false }
        let total = received + bytes.count
        let limit = mode == .sequential ? streamedLimit : bufferedLimit
        if total > limit || (declaredLength.map { total > $0 } ?? false) {
            let error =
                total > limit
                ? AudioMeteringError.tooLarge(bytes: total, limitBytes: limit, buffered: mode != .sequential)
                : AudioMeteringError.decodingFailed(
                    libsndfileMessage: "the body is longer than its declared length of \(declaredLength ?? 0) bytes")
            failure = failure ?? error
            condition.broadcast()
            throw error
        }
        storage.append(contentsOf: bytes)
        received = total
        peakHeld = max(peakHeld, storage.count)
        condition.broadcast()
        return true
    }

    /// Waits while the producer is too far ahead of a sequential decoder.
    public func room() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            condition.lock()
            if hasRoom {
                condition.unlock()
                continuation.resume()
            } else {
                roomWaiter = continuation
                condition.unlock()
            }
        }
    }

    /// Under the lock.
    private var hasRoom: Bool {
        readingClosed || failure != nil || received < wanted || mode == .buffered
            || received - readEnd < Self.readAhead
    }

    /// The recording is complete.
    public func finish() {
        condition.lock()
        ended = true
        condition.broadcast()
        condition.unlock()
    }

    /// The producer failed (the body broke off): the decoder sees the end and its result is not used.
    public func fail(_ error: AudioMeteringError) {
        condition.lock()
        failure = failure ?? error
        condition.broadcast()
        condition.unlock()
    }

    /// False once the decoder stopped: the producer need not send more.
    public var wantsMore: Bool {
        condition.lock()
        defer { condition.unlock() }
        return !readingClosed
    }

    /// Bytes received so far, and the most held at once.
    public var counts: (received: Int, peakHeld: Int) {
        condition.lock()
        defer { condition.unlock() }
        return (received, peakHeld)
    }

    /// True while the decoder waits for bytes not received yet, or has stopped reading: what it
    /// decoded so far is all it can decode without more (for tests).
    var decoderWaitsForMore: Bool {
        condition.lock()
        defer { condition.unlock() }
        return wanted > received || readingClosed
    }

    // MARK: Decoder

    /// The decoder stops reading: wakes a waiting producer, and later bytes are dropped.
    func closeReading() {
        condition.lock()
        readingClosed = true
        storage = []
        condition.broadcast()
        let waiter = roomWaiter
        roomWaiter = nil
        condition.unlock()
        waiter?.resume()
    }

    /// The error that stopped the producer, if any.
    var producerFailure: AudioMeteringError? {
        condition.lock()
        defer { condition.unlock() }
        return failure
    }

    /// Enters the sequential or buffered phase, once libsndfile has opened the recording.
    func enter(_ newMode: Mode) throws(AudioMeteringError) {
        condition.lock()
        mode = newMode
        if newMode == .buffered, received > bufferedLimit {
            condition.unlock()
            throw .tooLarge(bytes: received, limitBytes: bufferedLimit, buffered: true)
        }
        let waiter = hasRoom ? roomWaiter : nil
        if waiter != nil { roomWaiter = nil }
        condition.unlock()
        waiter?.resume()
    }

    /// The length libsndfile is told (see the type's notes); may wait for the header or the end.
    func lengthForDecoder() -> Int {
        condition.lock()
        defer { condition.unlock() }
        if let decoderLength { return decoderLength }
        let length: Int
        if let declaredLength {
            length = declaredLength
        } else {
            waitFor(64 << 10)
            if ended {
                length = received
            } else if let headerLength = Self.lengthFromHeader(storage[...]) {
                length = headerLength
            } else {
                waitFor(.max)
                length = received
            }
        }
        decoderLength = length
        return length
    }

    /// Under the lock: waits until `count` bytes were received (`.max`: all), or a failure.
    private func waitFor(_ count: Int) {
        guard received < count, !ended, failure == nil else { return }
        wanted = count
        let waiter = roomWaiter
        roomWaiter = nil
        if let waiter {
            condition.unlock()
            waiter.resume()
            condition.lock()
        }
        while received < count && !ended && failure == nil { condition.wait() }
        wanted = 0
    }

    /// A WAV's or AIFF's length up to the end of its audio data, from its chunks; `.max` for FLAC,
    /// whose decoder reads on without it; nil for anything else (or a header not found in `bytes`).
    static func lengthFromHeader(_ bytes: ArraySlice<UInt8>) -> Int? {
        func text(_ at: Int) -> String { String(decoding: bytes.dropFirst(at).prefix(4), as: UTF8.self) }
        func little(_ at: Int) -> Int {
            let b = Array(bytes.dropFirst(at).prefix(4))
            return b.count == 4 ? Int(b[0]) | Int(b[1]) << 8 | Int(b[2]) << 16 | Int(b[3]) << 24 : 0
        }
        func big(_ at: Int) -> Int {
            let b = Array(bytes.dropFirst(at).prefix(4))
            return b.count == 4 ? Int(b[3]) | Int(b[2]) << 8 | Int(b[1]) << 16 | Int(b[0]) << 24 : 0
        }
        guard bytes.count >= 12 else { return nil }
        if text(0) == "fLaC" { return unboundedLength }
        let riff = text(0) == "RIFF" && text(8) == "WAVE"
        let aiff = text(0) == "FORM" && (text(8) == "AIFF" || text(8) == "AIFC")
        guard riff || aiff else { return nil }
        var at = 12
        while at + 8 <= bytes.count {
            let size = riff ? little(at + 4) : big(at + 4)
            let id = text(at)
            if (riff && id == "data") || (aiff && id == "SSND") {
                return at + 8 + size + (size & 1)
            }
            at += 8 + size + (size & 1)
        }
        return nil
    }

    /// libsndfile's read: waits until `count` bytes past the position are there, or the end.
    func read(into destination: UnsafeMutableRawPointer, count: Int) -> Int {
        condition.lock()
        waitFor(position + count)
        guard failure == nil, position >= storageStart else {
            condition.unlock()
            return 0
        }
        let available = max(0, min(count, received - position))
        if available > 0 {
            storage.withUnsafeBytes { source in
                destination.copyMemory(from: source.baseAddress! + (position - storageStart), byteCount: available)
            }
            position += available
        }
        readEnd = position
        if mode == .sequential {
            // Drop what lies well behind, in steps, so that the copying is rare.
            let drop = position - Self.keptBehind - storageStart
            if drop >= Self.keptBehind * 4 {
                storage.removeFirst(drop)
                storageStart += drop
            }
        }
        let waiter = hasRoom ? roomWaiter : nil
        if waiter != nil { roomWaiter = nil }
        condition.unlock()
        waiter?.resume()
        return available
    }

    func seek(_ offset: Int, whence: Int32) -> Int {
        condition.lock()
        defer { condition.unlock() }
        let base: Int
        switch whence {
        case SEEK_SET: base = 0
        case SEEK_CUR: base = position
        case SEEK_END: base = decoderLength ?? received
        default: return -1
        }
        guard base + offset >= 0 else { return -1 }
        position = base + offset
        return position
    }

    func tell() -> Int {
        condition.lock()
        defer { condition.unlock() }
        return position
    }
}

/// libsndfile's virtual I/O over an ``AudioByteStream``.
final class StreamByteSource {
    let stream: AudioByteStream

    init(_ stream: AudioByteStream) {
        self.stream = stream
    }

    static func virtualIO() -> SF_VIRTUAL_IO {
        SF_VIRTUAL_IO(
            get_filelen: { userData in sf_count_t(StreamByteSource.source(userData).stream.lengthForDecoder()) },
            seek: { offset, whence, userData in
                sf_count_t(StreamByteSource.source(userData).stream.seek(Int(offset), whence: whence))
            },
            read: { destination, count, userData in
                guard let destination, count > 0 else { return 0 }
                return sf_count_t(StreamByteSource.source(userData).stream.read(into: destination, count: Int(count)))
            },
            write: { _, _, _ in 0 },
            tell: { userData in sf_count_t(StreamByteSource.source(userData).stream.tell()) })
    }

    private static func source(_ userData: UnsafeMutableRawPointer?) -> StreamByteSource {
        Unmanaged<StreamByteSource>.fromOpaque(userData!).takeUnretainedValue()
    }
}
