import CompressNIO
import HTTPTypes
import HearClearHTTP
import Hummingbird
import NIOCore

/// Collects every request body in memory up to the wire limit (413 past it), undoes a gzip
/// or deflate `Content-Encoding` up to the decompressed limit (413 past it, so a gzip bomb
/// costs at most 8 MiB), and refuses other encodings with 415. Only when a route takes the
/// request's method on its path: otherwise the body is left unread and the router answers 404,
/// or 405 with `Allow`, whatever the body holds (a TRACE or a POST to a PUT-only path with a
/// broken gzip body is a 405, not a 400). GET and HEAD bodies are never read. The meter's
/// identity body (``BodyLimits/streamedBodyPaths``) is left to its handler, which meters it as it
/// arrives; only a `Content-Length` over ``BodyLimits/meterStreamedBytes`` is refused here.
struct BodyLimitMiddleware<Context: RequestContext>: RouterMiddleware {
    /// The routes, to tell whether one takes this method here.
    let routes: RouteIndex

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
        -> Response
    {
        guard request.method != .get, request.method != .head,
            routes.allowedMethods(for: request.uri.path).contains(request.method)
        else {
            return try await next(request, context)
        }
        let large = BodyLimits.largeBodyPaths.contains(request.uri.path)
        // The meter reads an identity body as it arrives, under its own limits.
        let encoding = (request.headers[.contentEncoding] ?? "identity").lowercased()
            .trimmingCharacters(in: .whitespaces)
        if BodyLimits.streamedBodyPaths.contains(request.uri.path), encoding == "identity" {
            if let length = request.headers[.contentLength].flatMap(Int.init), length > BodyLimits.meterStreamedBytes {
                throw Self.tooLarge(
                    "the body is \(length) bytes; the limit is \(BodyLimits.meterStreamedBytes) bytes "
                        + "(\(AudioUploads.describe(bytes: BodyLimits.meterStreamedBytes)))")
            }
            return try await next(request, context)
        }
        let wireLimit = large ? BodyLimits.meterBytes : BodyLimits.wireBytes
        if let length = request.headers[.contentLength].flatMap(Int.init), length > wireLimit {
            throw Self.tooLarge("the body is \(length) bytes; the limit is \(wireLimit) bytes")
        }
        var body: ByteBuffer
        do {
            body = try await request.body.collect(upTo: wireLimit)
        } catch is NIOTooManyBytesError {
            throw Self.tooLarge("the body is larger than the limit of \(wireLimit) bytes")
        }
        let decompressedLimit = large ? BodyLimits.meterBytes : BodyLimits.decompressedBytes
        // An empty `Content-Encoding` names no coding: refused like an unknown one.
        switch encoding {
        case "identity":
            break
        case "gzip", "x-gzip":
            body = try Self.decompress(&body, algorithms: [.gzip()], limit: decompressedLimit)
        case "deflate":
            // HTTP's deflate is zlib-wrapped; some clients send raw deflate.
            body = try Self.decompress(&body, algorithms: [.zlib(), .deflate()], limit: decompressedLimit)
        default:
            throw Problem(
                .unsupportedMediaType, type: "unsupported-encoding", title: "Unsupported content encoding",
                detail: encoding.isEmpty
                    ? "Content-Encoding is empty; use gzip, deflate, identity or leave the header out"
                    : "Content-Encoding '\(encoding)' is not supported; use gzip, deflate or none",
                headers: [.acceptEncoding: "gzip, deflate"]
            )
        }
        var head = request.head
        head.headerFields[.contentEncoding] = nil
        head.headerFields[.contentLength] = String(body.readableBytes)
        return try await next(Request(head: head, body: .init(buffer: body)), context)
    }

    static func decompress(_ body: inout ByteBuffer, algorithms: [CompressionAlgorithm], limit: Int) throws
        -> ByteBuffer
    {
        var lastError: (any Error)?
        for algorithm in algorithms {
            var input = body
            do {
                let output = try input.decompress(with: algorithm, maxSize: limit)
                // CompressNIO's bound is approximate; the limit is exact.
                guard output.readableBytes <= limit else {
                    throw tooLarge("the body is larger than \(limit) bytes once decompressed")
                }
                return output
            } catch let problem as Problem {
                throw problem
            } catch let error as CompressNIOError where error == .bufferOverflow {
                throw tooLarge("the body is larger than \(limit) bytes once decompressed")
            } catch {
                lastError = error
            }
        }
        throw Problem.malformed(
            "the body is not valid \(algorithms.count == 1 ? "gzip" : "deflate") data (\(lastError.map { "\($0)" } ?? ""))"
        )
    }

    static func tooLarge(_ detail: String) -> Problem {
        Problem(.contentTooLarge, type: "too-large", title: "The request body is too large", detail: detail)
    }
}
