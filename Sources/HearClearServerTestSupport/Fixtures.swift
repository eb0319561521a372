import Foundation
import HTTPTypes
import NIOCore

public typealias JSONObject = [String: Any]

/// Request bodies built as dictionaries, so a test can break any field in any way.
public enum Fixture {
    public static let venueID = "4b0588c4f964a520a9d422e3"

    public static func timestamp(_ date: Date, offsetHours: Int = 11) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.timeZone = TimeZone(secondsFromGMT: offsetHours * 3600)
        return formatter.string(from: date)
    }

    /// A valid v2 check-in of `count` seconds ending about a minute ago; levels in dBFS.
    public static func checkin(
        id: UUID = UUID(), venue: String = venueID, device: String = "c0ffee00-1111-2222-3333-444455556666",
        count: Int = 30, start: Date? = nil, average: Double = -31.2, withVenueDetails: Bool = true
    ) -> JSONObject {
        let start = start ?? Date().addingTimeInterval(-Double(count) - 60).rounded()
        var venueObject: JSONObject = ["id": venue]
        if withVenueDetails {
            venueObject.merge(
                ["name": "The Arms", "latitude": -33.8688, "longitude": 151.2093, "timezone": "Australia/Sydney"]
            ) { _, new in new }
        }
        let samples: [JSONObject] = (0..<count).map { second in
            [
                "t": timestamp(start.addingTimeInterval(Double(second))),
                "average": average + Double(second % 3) * 0.5, "peak": average + 13.3,
            ]
        }
        return [
            "id": id.uuidString.lowercased(), "venue": venueObject,
            "device": ["id": device, "model": "iPhone15,2"],
            "location": ["latitude": -33.8689, "longitude": 151.2094, "accuracy": 20], "unit": "dbfs",
            "samples": samples,
        ]
    }

    public static func bytes(_ object: Any, pretty: Bool = false) -> ByteBuffer {
        let data = try! JSONSerialization.data(withJSONObject: object, options: pretty ? [.prettyPrinted] : [])
        return ByteBuffer(bytes: data)
    }

    public static let jsonHeaders: HTTPFields = [.contentType: "application/json"]
}

extension Date {
    public func rounded() -> Date { Date(timeIntervalSince1970: timeIntervalSince1970.rounded(.down)) }
}

extension ByteBuffer {
    /// The body as a JSON object (empty when it is not one).
    public var json: JSONObject {
        (try? JSONSerialization.jsonObject(with: Data(readableBytesView))) as? JSONObject ?? [:]
    }

    public var jsonArray: [JSONObject] {
        (try? JSONSerialization.jsonObject(with: Data(readableBytesView))) as? [JSONObject] ?? []
    }

    /// The JSON pointers a problem document lists.
    public var problemPointers: [String] {
        (json["errors"] as? [JSONObject] ?? []).compactMap { $0["pointer"] as? String }
    }
}
