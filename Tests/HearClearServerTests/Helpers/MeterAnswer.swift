import Foundation
import HummingbirdTesting

/// A JSON answer of the server, read loosely so a test can look at any field.
struct MeterAnswer {
    let object: [String: Any]

    init(_ response: TestResponse) {
        object =
            (try? JSONSerialization.jsonObject(with: Data(response.body.readableBytesView))) as? [String: Any] ?? [:]
    }

    init(json: Data) {
        object = (try? JSONSerialization.jsonObject(with: json)) as? [String: Any] ?? [:]
    }

    var samples: [[String: Any]] { object["samples"] as? [[String: Any]] ?? [] }
    var format: [String: Any] { object["format"] as? [String: Any] ?? [:] }
    var trailing: [String: Any] { object["trailingPartialSecond"] as? [String: Any] ?? [:] }

    func levels(_ key: String) -> [Double] { samples.compactMap { $0[key] as? Double } }

    subscript(key: String) -> Any? { object[key] }
}
