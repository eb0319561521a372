import Foundation
import HearClearEngine

/// Writes JSON text by hand for the answers too hot for `JSONEncoder` (search: the encoder was
/// a third of the server's time per search). It writes exactly what `JSONEncoder.api` writes for
/// the same body: keys in the order given (callers give them sorted), numbers as Swift prints
/// them without a trailing `.0`, strings with the encoder's escapes and slashes left alone, dates
/// in RFC 3339. `JSONWriterTests` holds it to the encoder, byte for byte.
struct JSONWriter {
    private(set) var bytes: [UInt8] = []
    /// Whether the next member or element needs a comma before it.
    private var needsComma = false

    init(capacity: Int = 4096) {
        bytes.reserveCapacity(capacity)
    }

    mutating func object(_ members: (inout JSONWriter) -> Void) {
        separate()
        bytes.append(UInt8(ascii: "{"))
        needsComma = false
        members(&self)
        bytes.append(UInt8(ascii: "}"))
        needsComma = true
    }

    mutating func array<S: Sequence>(_ elements: S, _ element: (inout JSONWriter, S.Element) -> Void) {
        separate()
        bytes.append(UInt8(ascii: "["))
        needsComma = false
        for item in elements { element(&self, item) }
        bytes.append(UInt8(ascii: "]"))
        needsComma = true
    }

    /// A member's key; its value is written next.
    mutating func key(_ name: StaticString) {
        separate()
        bytes.append(UInt8(ascii: "\""))
        name.withUTF8Buffer { bytes.append(contentsOf: $0) }
        bytes.append(UInt8(ascii: "\""))
        bytes.append(UInt8(ascii: ":"))
        needsComma = false
    }

    mutating func null() {
        value("null")
    }

    mutating func bool(_ value: Bool) {
        self.value(value ? "true" : "false")
    }

    mutating func int(_ value: Int) {
        self.value(String(value))
    }

    /// A finite number as `JSONEncoder` writes it: Swift's shortest form, `1500` not `1500.0`.
    mutating func number(_ value: Double) {
        precondition(value.isFinite, "JSON has no non-finite numbers")
        var text = value.description
        if text.hasSuffix(".0") { text.removeLast(2) }
        self.value(text)
    }

    mutating func number(_ value: Double?) {
        if let value { number(value) } else { null() }
    }

    mutating func string(_ value: String?) {
        guard let value else { return null() }
        separate()
        bytes.append(UInt8(ascii: "\""))
        for byte in value.utf8 {
            switch byte {
            case UInt8(ascii: "\""): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\"")])
            case UInt8(ascii: "\\"): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\\")])
            case 0x0A: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "n")])
            case 0x0D: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "r")])
            case 0x09: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "t")])
            case 0x08: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "b")])
            case 0x0C: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "f")])
            case 0..<0x20:
                let hex = Array("0123456789abcdef".utf8)
                bytes.append(contentsOf: Array("\\u00".utf8))
                bytes.append(hex[Int(byte >> 4)])
                bytes.append(hex[Int(byte & 0x0F)])
            default: bytes.append(byte)
            }
        }
        bytes.append(UInt8(ascii: "\""))
        needsComma = true
    }

    mutating func date(_ value: Date?) {
        guard let value else { return string(nil) }
        // RFC 3339 in UTC needs no escaping: straight into the bytes.
        separate()
        bytes.append(UInt8(ascii: "\""))
        RFC3339.append(value, to: &bytes)
        bytes.append(UInt8(ascii: "\""))
        needsComma = true
    }

    private mutating func value(_ text: String) {
        separate()
        bytes.append(contentsOf: text.utf8)
        needsComma = true
    }

    private mutating func separate() {
        if needsComma { bytes.append(UInt8(ascii: ",")) }
    }
}

/// A body that can write itself with ``JSONWriter`` as `JSONEncoder.api` would encode it.
protocol JSONWritable: Encodable {
    func write(to writer: inout JSONWriter)
}
