import Foundation
import HummingbirdTesting

/// A JSON answer of the server, read loosely so a test can look at any field.
public struct MeterAnswer {
    public let object: [String: Any]

    public init(_ response: TestResponse) {
        object =
            (try? JSONSerialization.jsonObject(with: Data(response.body.readableBytesView))) as? [String: Any] ?? [:]
    }

    public init(json: Data) {
        object = (try? JSONSerialization.jsonObject(with: json)) as? [String: Any] ?? [:]
    }

    public var samples: [[String: Any]] { object["samples"] as? [[String: Any]] ?? [] }
    public var format: [String: Any] { object["format"] as? [String: Any] ?? [:] }
    public var trailing: [String: Any] { object["trailingPartialSecond"] as? [String: Any] ?? [:] }

    public func levels(_ key: String) -> [Double] { samples.compactMap { $0[key] as? Double } }

    public subscript(key: String) -> Any? { object[key] }
}
