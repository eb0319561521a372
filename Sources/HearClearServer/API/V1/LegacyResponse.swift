import Foundation
import Hummingbird

/// Bodies in the 2013 wire format (docs/LEGACY_V1.md).
enum LegacyResponse {
    static func ok() -> Response {
        Response(status: .ok, headers: [.contentLength: "0"])
    }

    static func notFound() -> Response {
        json(["result": "notfound", "message": "Request not found"], status: .notFound)
    }

    static func error(_ status: HTTPResponse.Status, _ message: String) -> Response {
        json(["result": "error", "message": message], status: status)
    }

    static func json(_ object: Any, status: HTTPResponse.Status = .ok) -> Response {
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data("{}".utf8)
        return Response(
            status: status, headers: [.contentType: "application/json; charset=utf-8"],
            body: .init(byteBuffer: ByteBuffer(bytes: data))
        )
    }
}
