import Foundation
import HTTPTypes
import Hummingbird

/// An RFC 9457 problem document: the body of every v2 error.
public struct Problem: Error, HTTPResponseError, Sendable {
    /// One invalid field: a JSON pointer into the request body and what is wrong with it.
    public struct FieldError: Codable, Sendable, Equatable {
        public var pointer: String
        public var detail: String

        public init(_ pointer: String, _ detail: String) {
            self.pointer = pointer
            self.detail = detail
        }
    }

    public var status: HTTPResponse.Status
    public var type: String
    public var title: String
    public var detail: String?
    public var errors: [FieldError]
    public var headers: HTTPFields

    public init(
        _ status: HTTPResponse.Status, type: String, title: String, detail: String? = nil, errors: [FieldError] = [],
        headers: HTTPFields = [:]
    ) {
        self.status = status
        self.type = type
        self.title = title
        self.detail = detail
        self.errors = errors
        self.headers = headers
    }

    public func response(from request: Request, context: some RequestContext) throws -> Response {
        var headers = self.headers
        headers[.contentType] = "application/problem+json"
        let body = Body(
            type: "https://hearclear.app/problems/\(type)", title: title, status: status.code, detail: detail,
            instance: request.uri.path, errors: errors.isEmpty ? nil : errors
        )
        // As the API's bodies are written (sorted keys, slashes as they are); a problem holds no date.
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let data = try encoder.encode(body)
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }

    struct Body: Encodable {
        var type: String
        var title: String
        var status: Int
        var detail: String?
        var instance: String
        var errors: [FieldError]?
    }
}

extension Problem {
    public static func validation(_ errors: [FieldError]) -> Problem {
        Problem(
            .unprocessableContent, type: "validation", title: "The request is not valid",
            detail: errors.count == 1 ? errors[0].detail : "\(errors.count) fields are not valid", errors: errors
        )
    }

    public static func malformed(_ detail: String, pointer: String? = nil) -> Problem {
        Problem(
            .badRequest, type: "malformed", title: "The request could not be read", detail: detail,
            errors: pointer.map { [FieldError($0, detail)] } ?? []
        )
    }

    public static func notFound(_ detail: String) -> Problem {
        Problem(.notFound, type: "not-found", title: "Not found", detail: detail)
    }

    /// Seconds a client is told to wait (`Retry-After`) while the database is away.
    public static let unavailableRetryAfterSeconds = 5

    /// The database cannot be reached (docs/ARCHITECTURE.md, "When the database is away").
    public static var unavailable: Problem {
        let seconds = unavailableRetryAfterSeconds
        return Problem(
            .serviceUnavailable, type: "unavailable", title: "Service unavailable",
            detail: "the database cannot be reached; nothing was written; try again in \(seconds) seconds",
            headers: [.retryAfter: String(seconds)])
    }
}
