import Foundation

/// A strict, allocation-light reader of the usual v2 check-in body, for the ingest hot path
/// (Foundation's JSONDecoder took about 40 % of the server's time at a thousand check-ins a
/// second).
///
/// It accepts only the plain shape: the known keys with the expected JSON types (or null),
/// unknown keys skipped (escapes in their keys make it give up). Anything else makes it give up (`nil`) and the
/// caller decodes with JSONDecoder, which also words the errors. So it never decides what is
/// valid; it only reads faster what is.
enum CheckinFastParser {
    struct GiveUp: Error {}

    static func parse(_ bytes: UnsafeRawBufferPointer) -> CheckinRequest? {
        var reader = Reader(bytes: bytes)
        do {
            let request = try reader.checkin()
            reader.skipWhitespace()
            return reader.index == bytes.count ? request : nil
        } catch {
            return nil
        }
    }

    struct Reader {
        let bytes: UnsafeRawBufferPointer
        var index = 0

        init(bytes: UnsafeRawBufferPointer) { self.bytes = bytes }

        mutating func skipWhitespace() {
            while index < bytes.count {
                let b = bytes[index]
                guard b == 0x20 || b == 0x0A || b == 0x0D || b == 0x09 else { return }
                index += 1
            }
        }

        mutating func peek() throws(GiveUp) -> UInt8 {
            skipWhitespace()
            guard index < bytes.count else { throw GiveUp() }
            return bytes[index]
        }

        mutating func expect(_ byte: UInt8) throws(GiveUp) {
            guard try peek() == byte else { throw GiveUp() }
            index += 1
        }

        /// `null` is consumed and reported; anything else is left for the caller.
        mutating func null() throws(GiveUp) -> Bool {
            guard try peek() == UInt8(ascii: "n") else { return false }
            guard index + 4 <= bytes.count, bytes[index + 1] == 0x75, bytes[index + 2] == 0x6C,
                bytes[index + 3] == 0x6C
            else { throw GiveUp() }
            index += 4
            return true
        }

        /// The raw bytes of a string without escapes (its range in `bytes`).
        mutating func rawString() throws(GiveUp) -> Range<Int> {
            try expect(UInt8(ascii: "\""))
            let start = index
            while index < bytes.count {
                let b = bytes[index]
                if b == UInt8(ascii: "\"") {
                    index += 1
                    return start..<index - 1
                }
                guard b != UInt8(ascii: "\\"), b >= 0x20 else { throw GiveUp() }
                index += 1
            }
            throw GiveUp()
        }

        mutating func string() throws(GiveUp) -> String? {
            if try null() { return nil }
            let start = index + 1
            let range: Range<Int>
            do {
                range = try rawString()
            } catch {
                // An escape (iOS writes `Australia\/Sydney`) or a bad string: read it the long way.
                index = start - 1
                return try escapedString()
            }
            guard let text = String(validating: UnsafeRawBufferPointer(rebasing: bytes[range]), as: UTF8.self) else {
                throw GiveUp()
            }
            return text
        }

        /// A string with escapes (RFC 8259 §7), decoded; gives up on anything malformed.
        mutating func escapedString() throws(GiveUp) -> String {
            try expect(UInt8(ascii: "\""))
            var scalars = String.UnicodeScalarView()
            var raw: [UInt8] = []
            func flushRaw() throws(GiveUp) {
                guard !raw.isEmpty else { return }
                guard let text = String(validating: raw, as: UTF8.self) else { throw GiveUp() }
                scalars.append(contentsOf: text.unicodeScalars)
                raw.removeAll(keepingCapacity: true)
            }
            while index < bytes.count {
                let b = bytes[index]
                index += 1
                switch b {
                case UInt8(ascii: "\""):
                    try flushRaw()
                    return String(scalars)
                case UInt8(ascii: "\\"):
                    try flushRaw()
                    guard index < bytes.count else { throw GiveUp() }
                    let escape = bytes[index]
                    index += 1
                    switch escape {
                    case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"):
                        scalars.append(Unicode.Scalar(escape))
                    case UInt8(ascii: "b"): scalars.append("\u{08}")
                    case UInt8(ascii: "f"): scalars.append("\u{0C}")
                    case UInt8(ascii: "n"): scalars.append("\n")
                    case UInt8(ascii: "r"): scalars.append("\r")
                    case UInt8(ascii: "t"): scalars.append("\t")
                    case UInt8(ascii: "u"):
                        var code = try hex4()
                        if (0xD800..<0xDC00).contains(code) {
                            guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"),
                                bytes[index + 1] == UInt8(ascii: "u")
                            else { throw GiveUp() }
                            index += 2
                            let low = try hex4()
                            guard (0xDC00..<0xE000).contains(low) else { throw GiveUp() }
                            code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
                        }
                        guard let scalar = Unicode.Scalar(code) else { throw GiveUp() }
                        scalars.append(scalar)
                    default: throw GiveUp()
                    }
                default:
                    guard b >= 0x20 else { throw GiveUp() }
                    raw.append(b)
                }
            }
            throw GiveUp()
        }

        mutating func hex4() throws(GiveUp) -> UInt32 {
            guard index + 4 <= bytes.count else { throw GiveUp() }
            var value: UInt32 = 0
            for _ in 0..<4 {
                let b = bytes[index]
                let digit: UInt32
                switch b {
                case 0x30...0x39: digit = UInt32(b - 0x30)
                case 0x41...0x46: digit = UInt32(b - 0x41 + 10)
                case 0x61...0x66: digit = UInt32(b - 0x61 + 10)
                default: throw GiveUp()
                }
                value = value << 4 | digit
                index += 1
            }
            return value
        }

        /// A JSON number: the exact fast path (Clinger) for up to 15 significant digits and a
        /// small exponent, `strtod` (correctly rounded) otherwise.
        mutating func number() throws(GiveUp) -> Double? {
            if try null() { return nil }
            let start = index
            var negative = false
            if index < bytes.count, bytes[index] == UInt8(ascii: "-") {
                negative = true
                index += 1
            }
            var mantissa: UInt64 = 0
            var digits = 0
            var exponent = 0
            let integerStart = index
            while index < bytes.count, bytes[index] >= 0x30, bytes[index] <= 0x39 {
                mantissa = mantissa &* 10 &+ UInt64(bytes[index] - 0x30)
                digits += 1
                index += 1
            }
            guard index > integerStart else { throw GiveUp() }
            if index - integerStart > 1, bytes[integerStart] == 0x30 { throw GiveUp() }  // leading zero
            if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
                index += 1
                let fractionStart = index
                while index < bytes.count, bytes[index] >= 0x30, bytes[index] <= 0x39 {
                    mantissa = mantissa &* 10 &+ UInt64(bytes[index] - 0x30)
                    digits += 1
                    exponent -= 1
                    index += 1
                }
                guard index > fractionStart else { throw GiveUp() }
            }
            var hasExponent = false
            if index < bytes.count, bytes[index] | 0x20 == UInt8(ascii: "e") {
                hasExponent = true
                index += 1
                if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
                    index += 1
                }
                let exponentStart = index
                while index < bytes.count, bytes[index] >= 0x30, bytes[index] <= 0x39 { index += 1 }
                guard index > exponentStart else { throw GiveUp() }
            }
            if !hasExponent, digits <= 15, exponent >= -22 {
                let magnitude = Double(mantissa)
                let value = exponent == 0 ? magnitude : magnitude / Self.powersOfTen[-exponent]
                return negative ? -value : value
            }
            return try slowNumber(start..<index)
        }

        private func slowNumber(_ range: Range<Int>) throws(GiveUp) -> Double {
            var text = Array(bytes[range])
            text.append(0)
            let value = text.withUnsafeBufferPointer {
                strtod(UnsafeRawPointer($0.baseAddress!).assumingMemoryBound(to: CChar.self), nil)
            }
            guard value.isFinite else { throw GiveUp() }
            return value
        }

        static let powersOfTen: [Double] = (0...22).map { pow(10, Double($0)) }

        /// Skips any value (for keys the body may carry that we do not read).
        mutating func skipValue(depth: Int = 0) throws(GiveUp) {
            guard depth < 32 else { throw GiveUp() }
            switch try peek() {
            case UInt8(ascii: "\""): _ = try rawString()
            case UInt8(ascii: "{"):
                try object { reader, _ throws(GiveUp) in try reader.skipValue(depth: depth + 1) }
            case UInt8(ascii: "["):
                try array { reader throws(GiveUp) in try reader.skipValue(depth: depth + 1) }
            case UInt8(ascii: "t"): try literal("true")
            case UInt8(ascii: "f"): try literal("false")
            case UInt8(ascii: "n"): _ = try null()
            default: _ = try number()
            }
        }

        mutating func literal(_ word: StaticString) throws(GiveUp) {
            let count = word.utf8CodeUnitCount
            guard index + count <= bytes.count else { throw GiveUp() }
            for offset in 0..<count where bytes[index + offset] != word.utf8Start[offset] { throw GiveUp() }
            index += count
        }

        /// Reads `{ "key": value, … }`, calling `field` with each key's raw bytes.
        mutating func object(_ field: (inout Reader, Range<Int>) throws(GiveUp) -> Void) throws(GiveUp) {
            try expect(UInt8(ascii: "{"))
            if try peek() == UInt8(ascii: "}") {
                index += 1
                return
            }
            while true {
                let key = try rawString()
                try expect(UInt8(ascii: ":"))
                try field(&self, key)
                let next = try peek()
                index += 1
                if next == UInt8(ascii: "}") { return }
                guard next == UInt8(ascii: ",") else { throw GiveUp() }
            }
        }

        mutating func array(_ element: (inout Reader) throws(GiveUp) -> Void) throws(GiveUp) {
            try expect(UInt8(ascii: "["))
            if try peek() == UInt8(ascii: "]") {
                index += 1
                return
            }
            while true {
                try element(&self)
                let next = try peek()
                index += 1
                if next == UInt8(ascii: "]") { return }
                guard next == UInt8(ascii: ",") else { throw GiveUp() }
            }
        }

        func key(_ range: Range<Int>, is name: StaticString) -> Bool {
            guard range.count == name.utf8CodeUnitCount else { return false }
            for offset in 0..<range.count where bytes[range.lowerBound + offset] != name.utf8Start[offset] {
                return false
            }
            return true
        }
    }
}
