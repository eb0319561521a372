import Foundation
import HearClearTestSupport
import NIOCore
import NIOPosix
import Synchronization

/// A bare HTTP/1.1 client that streams a request body of filler bytes chunk by chunk, reusing
/// one chunk, so a test can send more than the server's limit without holding it in memory.
/// After `holdAfter` bytes of body it stops sending for `hold` (``TestPatience/event``, cut short by the
/// answer: long, so that a loaded machine is not mistaken for a server that waited for the body's
/// end) without ending the body: an answer
/// that arrives then was given before the body ended. It returns when the response head arrives.
enum StreamingUpload {
    struct Outcome {
        var status: Int
        var head: String
        var bodyBytesSent: Int
    }

    /// A plain TCP connection to the server, bytes both ways.
    private static func connect(host: String, port: Int) async throws -> NIOAsyncChannel<ByteBuffer, ByteBuffer> {
        try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connect(host: host, port: port) { channel in
                channel.eventLoop.makeCompletedFuture {
                    try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel)
                }
            }
    }

    /// A POST's head: with `Content-Length: declaredLength`, or chunked without it.
    private static func requestHead(path: String, host: String, contentType: String, declaredLength: Int? = nil)
        -> ByteBuffer
    {
        var head = "POST \(path) HTTP/1.1\r\nHost: \(host)\r\nContent-Type: \(contentType)\r\n"
        head += declaredLength.map { "Content-Length: \($0)\r\n" } ?? "Transfer-Encoding: chunked\r\n"
        return ByteBuffer(string: head + "\r\n")
    }

    /// Sends at most `maxBytes` of body: `Transfer-Encoding: chunked` without `declaredLength`,
    /// else that `Content-Length` (and never more than it). The body is `content` when given
    /// (`maxBytes` then at most its size), else filler bytes.
    static func post(
        host: String = "localhost", port: Int, path: String, contentType: String, declaredLength: Int? = nil,
        maxBytes: Int, holdAfter: Int, hold: Duration = TestPatience.event, chunkBytes: Int = 1 << 20,
        content: ByteBuffer? = nil
    ) async throws -> Outcome {
        let channel = try await connect(host: host, port: port)
        let sent = SentBytes()
        return try await channel.executeThenClose { inbound, outbound in
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask {
                    try await outbound.write(
                        requestHead(path: path, host: host, contentType: contentType, declaredLength: declaredLength))
                    let limit = min(maxBytes, declaredLength ?? .max)
                    let chunk = ByteBuffer(repeating: 0x55, count: chunkBytes)
                    while sent.value < limit, !Task.isCancelled {
                        if sent.value == holdAfter { try await Task.sleep(for: hold) }
                        let end = sent.value < holdAfter ? holdAfter : limit
                        let length = min(chunkBytes, end - sent.value)
                        let piece =
                            content.map { $0.getSlice(at: $0.readerIndex + sent.value, length: length)! }
                            ?? chunk.getSlice(at: 0, length: length)!
                        if declaredLength == nil {
                            try await outbound.write(
                                ByteBuffer(string: String(piece.readableBytes, radix: 16) + "\r\n"))
                            try await outbound.write(contentsOf: [piece, ByteBuffer(string: "\r\n")])
                        } else {
                            try await outbound.write(piece)
                        }
                        sent.add(piece.readableBytes)
                    }
                    if declaredLength == nil, !Task.isCancelled {
                        try await outbound.write(ByteBuffer(string: "0\r\n\r\n"))
                    }
                }
                var response = ByteBuffer()
                for try await part in inbound {
                    response.writeImmutableBuffer(part)
                    if String(buffer: response).contains("\r\n\r\n") { break }
                }
                let sentAtResponse = sent.value
                group.cancelAll()
                // The writer may stop with an error once the connection goes; only the response matters.
                while (try? await group.next()) != nil {}
                let head = String(String(buffer: response).split(separator: "\r\n\r\n").first ?? "")
                let status = head.split(separator: " ").dropFirst().first.flatMap { Int($0) } ?? 0
                return Outcome(status: status, head: head, bodyBytesSent: sentAtResponse)
            }
        }
    }

    /// A chunked upload that sent its first bytes and holds the rest back, its connection open
    /// until ``close()``.
    struct HeldUpload: Sendable {
        let channel: NIOAsyncChannel<ByteBuffer, ByteBuffer>

        /// The answer's head and body (by its `Content-Length`), once the server answers before
        /// the upload's body ends; empty when the connection closes first.
        func response() async throws -> (head: String, body: String) {
            try await channel.executeThenClose { inbound, _ in
                var response = ByteBuffer()
                for try await part in inbound {
                    response.writeImmutableBuffer(part)
                    let text = String(buffer: response)
                    guard let end = text.range(of: "\r\n\r\n") else { continue }
                    let head = String(text[..<end.lowerBound])
                    let length =
                        head.lowercased().split(separator: "\r\n").first { $0.hasPrefix("content-length:") }
                        .flatMap { Int($0.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)) }
                        ?? 0
                    let body = text[end.upperBound...]
                    if body.utf8.count >= length { return (head, String(body)) }
                }
                return ("", "")
            }
        }

        /// Closes the connection mid-body (``response()`` closes it too once answered).
        func close() async throws { channel.channel.close(promise: nil) }
    }

    /// Starts a chunked POST of `first` and holds it there.
    static func hold(
        host: String = "localhost", port: Int, path: String, contentType: String, first: ByteBuffer
    ) async throws -> HeldUpload {
        let channel = try await connect(host: host, port: port)
        var bytes = requestHead(path: path, host: host, contentType: contentType)
        bytes.writeString(String(first.readableBytes, radix: 16) + "\r\n")
        bytes.writeImmutableBuffer(first)
        bytes.writeString("\r\n")
        try await channel.channel.writeAndFlush(bytes)
        return HeldUpload(channel: channel)
    }

    struct Exchange {
        var status: Int
        var body: ByteBuffer
        /// From the last chunk's write to the answer's head.
        var afterLastChunk: Duration
    }

    /// Sends `content` chunked (`Transfer-Encoding: chunked`, pieces of `chunkBytes`), or with
    /// `chunked` false whole (its `Content-Length`), and reads the whole answer (its
    /// `Content-Length`). It waits for the answer as long as it takes: unlike HummingbirdTesting's
    /// client (20 s a request), metering long audio on a loaded machine does not time it out.
    static func exchange(
        host: String = "localhost", port: Int, path: String, contentType: String, content: ByteBuffer,
        chunkBytes: Int = 64 << 10, chunked: Bool = true
    ) async throws -> Exchange {
        let channel = try await connect(host: host, port: port)
        let lastChunk = LastChunk()
        return try await channel.executeThenClose { inbound, outbound in
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask {
                    guard chunked else {
                        try await outbound.write(
                            requestHead(
                                path: path, host: host, contentType: contentType, declaredLength: content.readableBytes)
                        )
                        try await outbound.write(content)
                        lastChunk.at.withLock { $0 = .now }
                        return
                    }
                    try await outbound.write(requestHead(path: path, host: host, contentType: contentType))
                    var rest = content
                    while let piece = rest.readSlice(length: min(chunkBytes, rest.readableBytes)),
                        piece.readableBytes > 0
                    {
                        try await outbound.write(ByteBuffer(string: String(piece.readableBytes, radix: 16) + "\r\n"))
                        try await outbound.write(contentsOf: [piece, ByteBuffer(string: "\r\n")])
                    }
                    try await outbound.write(ByteBuffer(string: "0\r\n\r\n"))
                    lastChunk.at.withLock { $0 = .now }
                }
                var response = ByteBuffer()
                var headEnd: Int?
                var answeredAt = ContinuousClock.now
                for try await part in inbound {
                    response.writeImmutableBuffer(part)
                    let text = String(buffer: response)
                    if headEnd == nil, let range = text.range(of: "\r\n\r\n") {
                        answeredAt = .now
                        headEnd = text.utf8.distance(from: text.startIndex, to: range.upperBound)
                    }
                    if let headEnd {
                        let head = text.prefix(headEnd).lowercased()
                        let length =
                            head.split(separator: "\r\n").first { $0.hasPrefix("content-length:") }
                            .flatMap { Int($0.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)) }
                            ?? 0
                        if response.readableBytes - headEnd >= length { break }
                    }
                }
                try await group.waitForAll()
                let headEndIndex = headEnd ?? response.readableBytes
                let head = response.getString(at: 0, length: headEndIndex) ?? ""
                let status = head.split(separator: " ").dropFirst().first.flatMap { Int($0) } ?? 0
                let body =
                    response.getSlice(at: headEndIndex, length: response.readableBytes - headEndIndex) ?? ByteBuffer()
                let sentAt = lastChunk.at.withLock { $0 } ?? answeredAt
                return Exchange(status: status, body: body, afterLastChunk: answeredAt - sentAt)
            }
        }
    }

    private final class LastChunk: Sendable {
        let at = Mutex<ContinuousClock.Instant?>(nil)
    }

    private final class SentBytes: Sendable {
        private let count = Mutex(0)
        var value: Int { count.withLock { $0 } }
        func add(_ bytes: Int) { count.withLock { $0 += bytes } }
    }
}
