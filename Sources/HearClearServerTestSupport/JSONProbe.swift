import Foundation
import Hummingbird
import HummingbirdTesting

/// GETs of JSON answers for the engine tests, as plain dictionaries.
public enum JSONProbe {
    public static func object(_ buffer: ByteBuffer) throws -> [String: Any] {
        let data = buffer.withUnsafeReadableBytes { Data($0) }
        return try JSONSerialization.jsonObject(with: data) as? [String: Any] ?? [:]
    }

    /// The body of a 200 answer, or `nil` for any other status.
    public static func get(_ uri: String, from client: some TestClientProtocol) async throws -> [String: Any]? {
        try await client.execute(uri: uri, method: .get) { response in
            response.status == .ok ? try object(response.body) : nil
        }
    }

    /// The one hour cell of `day` at `hour` in a loudness grid.
    public static func cell(_ grid: [String: Any], day: String, hour: Int) -> [String: Any]? {
        let days = grid["days"] as? [[String: Any]] ?? []
        let hours = days.first { $0["day"] as? String == day }?["hours"] as? [[String: Any]] ?? []
        return hours.first { $0["hour"] as? Int == hour }
    }
}
