import Foundation
import HTTPTypes
import NIOHTTP1
import OpenAPIRuntime
import Synchronization

/// Keeps the status and bytes of the answer to a request made through HearClearClient within
/// `AnswerCapture.capture`, which the typed client hands on only as decoded values: for the
/// commands that print the server's own JSON or a refusal's problem document. Per task (a task
/// local), so concurrent requests each see their own.
public struct AnswerCapture: ClientMiddleware {
    public struct Answer: Sendable {
        public var status: HTTPResponse.Status
        public var body: Data

        /// `201 Created`: the transport hands on no reason phrase, so the standard one.
        public var statusLine: String {
            let phrase =
                status.reasonPhrase.isEmpty
                ? HTTPResponseStatus(statusCode: status.code).reasonPhrase : status.reasonPhrase
            return "\(status.code) \(phrase)"
        }
    }

    final class Slot: Sendable {
        let answer = Mutex<Answer?>(nil)
    }

    @TaskLocal static var slot: Slot?

    public init() {}

    /// The longest answer a call may have (the API's are far shorter).
    static let limit = 16 << 20

    /// Runs `operation`, and gives its result with the last answer it received, if any.
    public static func capture<T>(_ operation: () async throws -> T) async throws -> (result: T, answer: Answer?) {
        let slot = Slot()
        let result = try await $slot.withValue(slot) { try await operation() }
        return (result, slot.answer.withLock { $0 })
    }

    public func intercept(
        _ request: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String,
        next: @Sendable (HTTPRequest, HTTPBody?, URL) async throws -> (HTTPResponse, HTTPBody?)
    ) async throws -> (HTTPResponse, HTTPBody?) {
        let (response, answerBody) = try await next(request, body, baseURL)
        guard let slot = Self.slot else { return (response, answerBody) }
        var bytes = Data()
        if let answerBody { bytes = try await Data(collecting: answerBody, upTo: Self.limit) }
        slot.answer.withLock { $0 = Answer(status: response.status, body: bytes) }
        return (response, answerBody == nil ? nil : HTTPBody(bytes))
    }
}
