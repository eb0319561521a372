import Foundation
import HearClearHTTP
import Hummingbird

/// Reads a JSON request body (already collected and decompressed by `BodyLimitMiddleware`)
/// into `T`, turning decoding failures into problem documents that point at the field.
enum JSONBody {
    /// - Parameter fastPath: a quicker reader tried first; when it gives up (nil), JSONDecoder
    ///   decodes and words any error.
    static func decode<T: Decodable>(
        _ type: T.Type, from request: Request, requireJSONContentType: Bool = true,
        fastPath: ((UnsafeRawBufferPointer) -> T?)? = nil
    ) async throws -> T {
        if requireJSONContentType {
            let contentType = request.headers[.contentType]?.lowercased() ?? ""
            let mediaType = contentType.split(separator: ";").first?.trimmingCharacters(in: .whitespaces) ?? ""
            guard mediaType == "application/json" || mediaType.hasSuffix("+json") else {
                throw Problem(
                    .unsupportedMediaType, type: "unsupported-media-type", title: "Unsupported media type",
                    detail: "send the body as application/json"
                        + (contentType.isEmpty ? " (no Content-Type was given)" : ", not \(contentType)")
                )
            }
        }
        // BodyLimitMiddleware has already collected and bounded the body.
        let buffer = try await request.body.collect(upTo: BodyLimits.meterBytes)
        if let fastPath, let value = buffer.withUnsafeReadableBytes({ fastPath($0) }) { return value }
        return try decode(type, from: Data(buffer: buffer))
    }

    static func decode<T: Decodable>(_ type: T.Type, from data: Data) throws -> T {
        guard !data.isEmpty else { throw Problem.malformed("the request body is empty") }
        do {
            return try JSONDecoder().decode(type, from: data)
        } catch let error as DecodingError {
            throw problem(for: error)
        }
    }

    static func problem(for error: DecodingError) -> Problem {
        switch error {
        case .typeMismatch(let expected, let context):
            return .validation([.init(pointer(context.codingPath), "must be \(describe(expected))")])
        case .valueNotFound(let expected, let context):
            return .validation([.init(pointer(context.codingPath), "must be \(describe(expected)), not null")])
        case .keyNotFound(let key, let context):
            return .validation([.init(pointer(context.codingPath + [key]), "is required")])
        case .dataCorrupted(let context):
            if context.codingPath.isEmpty {
                return .malformed("the body is not valid JSON")
            }
            return .validation([.init(pointer(context.codingPath), "is not a valid value")])
        @unknown default:
            return .malformed("the body could not be read")
        }
    }

    /// RFC 6901 JSON pointer of a coding path (`/samples/12/peak`).
    static func pointer(_ path: [any CodingKey]) -> String {
        path.map { key in
            if let index = key.intValue { return "/\(index)" }
            return "/"
                + key.stringValue.replacingOccurrences(of: "~", with: "~0").replacingOccurrences(of: "/", with: "~1")
        }.joined()
    }

    private static func describe(_ type: Any.Type) -> String {
        switch type {
        case is Double.Type, is Float.Type, is Int.Type: "a number"
        case is String.Type: "a string"
        case is Bool.Type: "true or false"
        default:
            String(describing: type).hasPrefix("Array") ? "an array" : "an object"
        }
    }
}

extension Data {
    init(buffer: ByteBuffer) {
        self = buffer.withUnsafeReadableBytes { Data($0) }
    }
}
