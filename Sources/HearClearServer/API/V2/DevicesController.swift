import Foundation
import HearClearEngine
import HearClearHTTP
import HearClearModel
import Hummingbird

/// `GET /api/v2/devices/{deviceId}/data` (everything stored about the device) and
/// `DELETE /api/v2/devices/{deviceId}` (its erasure): a phone's rights over its data, proved by
/// the device id only it holds (docs/PRIVACY.md). Limited per address (``RateLimitMiddleware``);
/// the id never reaches a log (``LoggedPath``).
struct DevicesController {
    let privacy: DevicePrivacy

    func addRoutes(to group: RouterGroup<AppRequestContext>) {
        group.get("devices/{deviceId}/data", use: data)
        group.delete("devices/{deviceId}", use: erase)
    }

    static func deviceID(_ context: AppRequestContext) throws -> String {
        let id = context.parameters.get("deviceId") ?? ""
        guard !id.isEmpty, id.count <= ReportValidator.deviceMaxLength else {
            throw Problem.malformed(
                "the device id in the path must be 1 to \(ReportValidator.deviceMaxLength) characters",
                pointer: "/deviceId")
        }
        return id
    }

    static let unknown = Problem.notFound("nothing is stored about this device")

    @Sendable func data(_ request: Request, context: AppRequestContext) async throws -> Response {
        guard let data = try await privacy.data(deviceID: try Self.deviceID(context)) else { throw Self.unknown }
        return try JSONResponse.make(DeviceDataBody(data))
    }

    @Sendable func erase(_ request: Request, context: AppRequestContext) async throws -> Response {
        guard let summary = try await privacy.erase(deviceID: try Self.deviceID(context), by: "phone") else {
            throw Self.unknown
        }
        return try JSONResponse.make(DeviceErasureBody(summary), status: .accepted)
    }
}
