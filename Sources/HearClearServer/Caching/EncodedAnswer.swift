import CompressNIO
import Foundation
import HearClearHTTP
import Hummingbird

/// One answer of a read endpoint as it goes on the wire: the body (JSON, or a page), its gzip'd
/// form when it is over the compression threshold, and the strong ETag of each (the gzip'd one is
/// the plain one's with `-gzip`, as ``ResponseCompressionMiddleware`` names it).
struct EncodedAnswer: Sendable {
    /// The body as it is (JSON, HTML, SVG).
    let plain: ByteBuffer
    let gzipped: ByteBuffer?
    let eTag: String
    let contentType: String
    /// Sent with the body (and with a 304), beside the content type, tag and `Cache-Control`.
    let headers: HTTPFields

    init(_ value: some Encodable) throws {
        try self.init(
            body: JSONEncoder.api.encode(value), contentType: "application/json; charset=utf-8", headers: [:])
    }

    init(body data: some Collection<UInt8>, contentType: String, headers: HTTPFields) throws {
        let data = Array(data)
        eTag = EntityTag.strong(for: data)
        plain = ByteBuffer(bytes: data)
        self.contentType = contentType
        self.headers = headers
        if data.count > ResponseCompressionMiddleware<AppRequestContext>.threshold {
            var source = plain
            gzipped = try source.compress(with: .gzip())
        } else {
            gzipped = nil
        }
    }

    var gzipETag: String { EntityTag.gzipped(eTag) }

    /// Bytes held: both bodies.
    var bytes: Int { plain.readableBytes + (gzipped?.readableBytes ?? 0) }

    /// The answer to `request`: gzip'd when the client accepts it (never for HEAD, as the
    /// middleware does), or 304 when `If-None-Match` names this representation's tag.
    func response(to request: Request, cacheControl: String) -> Response {
        let gzip =
            gzipped != nil && request.method != .head
            && ResponseCompressionMiddleware<AppRequestContext>.acceptsGzip(request.headers[.acceptEncoding])
        let tag = gzip ? gzipETag : eTag
        if let presented = EntityTag.match(tag, ifNoneMatch: request.headers[.ifNoneMatch]) {
            var headers = self.headers
            headers[.eTag] = presented == "*" ? tag : presented
            headers[.cacheControl] = cacheControl
            return Response(status: .notModified, headers: headers)
        }
        var headers = self.headers
        headers[.contentType] = contentType
        headers[.eTag] = tag
        headers[.cacheControl] = cacheControl
        if gzip { headers[.contentEncoding] = "gzip" }
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: gzip ? gzipped! : plain))
    }
}
