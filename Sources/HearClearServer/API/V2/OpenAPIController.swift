import Foundation
import HearClearEngine
import HearClearHTTP
import HearClearModel
import Hummingbird

/// Serves the OpenAPI 3.1 description of v2 kept in the repository (`API/openapi.yaml`).
struct OpenAPIController {
    let document: ByteBuffer

    init(path: String) throws {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ConfigurationError.invalid("the OpenAPI description is missing at \(path)")
        }
        document = ByteBuffer(bytes: data)
    }

    func addRoutes(to group: RouterGroup<AppRequestContext>) {
        let document = self.document
        group.get("openapi.yaml") { _, _ in
            Response(
                status: .ok, headers: [.contentType: "application/yaml; charset=utf-8"],
                body: .init(byteBuffer: document)
            )
        }
    }
}
