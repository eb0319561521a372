import CompressNIO
import HTTPTypes
import HearClearHTTP
import Hummingbird

/// Gzips responses over ~1 KiB when the client's `Accept-Encoding` allows gzip, at zlib's
/// fastest level: these answers (search above all) are compressed once per request, where level
/// 6 cost a search a twentieth of its time for a few per cent of bytes. Answers the read cache
/// keeps come compressed already, at the default level, once per change (``EncodedAnswer``).
struct ResponseCompressionMiddleware<Context: RequestContext>: RouterMiddleware {
    static var threshold: Int { 1024 }
    static var gzip: CompressionAlgorithm { .gzip(configuration: .init(compressionLevel: 1)) }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
        -> Response
    {
        var response = try await next(request, context)
        response.headers[values: .vary].append("Accept-Encoding")
        // The cheap tests first: a cached answer comes already encoded.
        guard response.headers[.contentEncoding] == nil, request.method != .head,
            let length = response.body.contentLength, length > Self.threshold,
            Self.acceptsGzip(request.headers[.acceptEncoding])
        else { return response }
        let collected = CollectedBody()
        try await response.body.write(CollectingWriter(target: collected))
        let compressed = try collected.buffer.compress(with: Self.gzip)
        response.headers[.contentEncoding] = "gzip"
        // A strong tag names one representation; the gzipped one gets its own (RFC 9110 §8.8.3).
        if let tag = response.headers[.eTag], tag.hasPrefix("\""), tag.hasSuffix("\"") {
            response.headers[.eTag] = EntityTag.gzipped(tag)
        }
        response.headers[.contentLength] = String(compressed.readableBytes)
        response.body = .init(byteBuffer: compressed)
        return response
    }

    /// True when `gzip` (or `*`) is listed without `q=0`.
    static func acceptsGzip(_ header: String?) -> Bool {
        guard let header else { return false }
        for item in header.lowercased().split(separator: ",") {
            let parts = item.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
            guard let coding = parts.first, coding == "gzip" || coding == "x-gzip" || coding == "*" else { continue }
            let q = parts.dropFirst().first { $0.hasPrefix("q=") }.flatMap { Double($0.dropFirst(2)) } ?? 1
            if q > 0 { return true }
        }
        return false
    }
}

/// Accumulates a response body in memory (the writer is consumed, so it fills a box).
final class CollectedBody {
    var buffer = ByteBuffer()
}

struct CollectingWriter: ResponseBodyWriter {
    let target: CollectedBody
    mutating func write(_ buffer: ByteBuffer) async throws {
        var buffer = buffer
        target.buffer.writeBuffer(&buffer)
    }
    consuming func finish(_ trailingHeaders: HTTPFields?) async throws {}
}
