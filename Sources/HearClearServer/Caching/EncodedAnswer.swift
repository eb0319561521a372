import CompressNIO
import Foundation
import HearClearHTTP
import Hummingbird

/// One answer of a read endpoint as it goes on the wire: the JSON, its gzip'd form when it is
/// over the compression threshold, and the strong ETag of each (the gzip'd one is the JSON's with
/// `-gzip`, as ``ResponseCompressionMiddleware`` names it).
struct EncodedAnswer: Sendable {
    let json: ByteBuffer
    let gzipped: ByteBuffer?
    let eTag: String

    init(_ value: some Encodable) throws {
        let data = try JSONEncoder.api.encode(value)
        eTag = EntityTag.strong(for: data)
        json = ByteBuffer(bytes: data)
        if data.count > ResponseCompressionMiddleware<AppRequestContext>.threshold {
            var source = json
            gzipped = try source.compress(with: .gzip())
        } else {
            gzipped = nil
        }
    }

    var gzipETag: String { EntityTag.gzipped(eTag) }

    /// Bytes held: both bodies.
    var bytes: Int { json.readableBytes + (gzipped?.readableBytes ?? 0) }

    /// The answer to `request`: gzip'd when the client accepts it (never for HEAD, as the
    /// middleware does), or 304 when `If-None-Match` names this representation's tag.
    func response(to request: Request, cacheControl: String) -> Response {
        let gzip =
            gzipped != nil && request.method != .head
            && ResponseCompressionMiddleware<AppRequestContext>.acceptsGzip(request.headers[.acceptEncoding])
        let tag = gzip ? gzipETag : eTag
        if let presented = EntityTag.match(tag, ifNoneMatch: request.headers[.ifNoneMatch]) {
            return Response(
                status: .notModified, headers: [.eTag: presented == "*" ? tag : presented, .cacheControl: cacheControl])
        }
        var headers: HTTPFields = [
            .contentType: "application/json; charset=utf-8", .eTag: tag, .cacheControl: cacheControl,
        ]
        if gzip { headers[.contentEncoding] = "gzip" }
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: gzip ? gzipped! : json))
    }
}
