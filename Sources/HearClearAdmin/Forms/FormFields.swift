import Foundation
import HearClearHTTP
import Hummingbird

/// The fields of an `application/x-www-form-urlencoded` body (or a query string): `+` is a
/// space, `%XX` a byte; a repeated name keeps every value in order.
struct FormFields: Sendable, Equatable {
    private(set) var values: [String: [String]] = [:]

    init() {}

    init(encoded: String) {
        for pair in encoded.split(separator: "&", omittingEmptySubsequences: true) {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = Self.decode(parts[0])
            let value = parts.count > 1 ? Self.decode(parts[1]) : ""
            values[name, default: []].append(value)
        }
    }

    /// Fields already decoded, in order: the text parts of a `multipart/form-data` body.
    init(fields: [(name: String, value: String)]) {
        for (name, value) in fields { values[name, default: []].append(value) }
    }

    /// The body of `request`, already collected by `BodyLimitMiddleware`.
    static func from(_ request: Request) async throws -> FormFields {
        let buffer = try await request.body.collect(upTo: BodyLimits.wireBytes)
        return FormFields(encoded: String(buffer: buffer))
    }

    /// The first value of `name`.
    subscript(name: String) -> String? {
        values[name]?.first
    }

    /// Every value of `name`, in order.
    func all(_ name: String) -> [String] {
        values[name] ?? []
    }

    private static func decode(_ text: Substring) -> String {
        let spaced = text.replacingOccurrences(of: "+", with: " ")
        return spaced.removingPercentEncoding ?? spaced
    }
}
