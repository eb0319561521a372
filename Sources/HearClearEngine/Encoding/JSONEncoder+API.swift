import Foundation

extension JSONEncoder {
    /// Encoder of API bodies and exports: sorted keys (stable bodies, cacheable ETags), RFC 3339
    /// dates.
    public static var api: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(RFC3339.format(date))
        }
        return encoder
    }
}
