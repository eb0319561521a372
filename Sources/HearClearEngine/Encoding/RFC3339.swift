import Foundation

/// RFC 3339 timestamps (`2026-11-21T21:03:04+11:00`, `…04.250Z`), parsed by hand: the ingest
/// path reads hundreds per check-in and Foundation's formatters are far slower.
public enum RFC3339 {
    /// A parsed timestamp: the instant, and the UTC offset it was written with.
    public struct Timestamp: Sendable, Equatable {
        /// Seconds since 1970-01-01T00:00:00Z.
        public var secondsSince1970: Double
        /// The offset written in the timestamp, in minutes east of UTC.
        public var offsetMinutes: Int
        public var date: Date { Date(timeIntervalSince1970: secondsSince1970) }
    }

    /// Parses `YYYY-MM-DD(T|t| )HH:MM:SS[.fraction](Z|z|±HH:MM)`; nil when malformed or out of range.
    public static func parse(_ text: String) -> Timestamp? {
        var text = text
        return text.withUTF8 { parse(bytes: $0) }
    }

    static func parse(bytes b: UnsafeBufferPointer<UInt8>) -> Timestamp? {
        guard b.count >= 20 else { return nil }
        func digits(_ start: Int, _ count: Int) -> Int? {
            var value = 0
            for i in start..<start + count {
                let d = Int(b[i]) - 48
                guard d >= 0 && d <= 9 else { return nil }
                value = value * 10 + d
            }
            return value
        }
        guard let year = digits(0, 4), b[4] == 45, let month = digits(5, 2), b[7] == 45, let day = digits(8, 2),
            b[10] == 84 || b[10] == 116 || b[10] == 32, let hour = digits(11, 2), b[13] == 58,
            let minute = digits(14, 2), b[16] == 58, let second = digits(17, 2)
        else { return nil }
        guard (1...12).contains(month), day >= 1, day <= daysInMonth(year: year, month: month), hour <= 23,
            minute <= 59, second <= 59
        else { return nil }
        var index = 19
        var fraction = 0.0
        if b[index] == 46 {  // '.'
            index += 1
            var scale = 0.1
            let start = index
            while index < b.count, b[index] >= 48, b[index] <= 57 {
                fraction += Double(b[index] - 48) * scale
                scale /= 10
                index += 1
            }
            guard index > start, index - start <= 9 else { return nil }
        }
        guard index < b.count else { return nil }
        var offset = 0
        if b[index] == 90 || b[index] == 122 {  // Z z
            index += 1
        } else if b[index] == 43 || b[index] == 45, index + 6 == b.count, let oh = digits(index + 1, 2),
            b[index + 3] == 58, let om = digits(index + 4, 2), oh <= 23, om <= 59
        {
            offset = (oh * 60 + om) * (b[index] == 45 ? -1 : 1)
            index += 6
        } else {
            return nil
        }
        guard index == b.count else { return nil }
        let days = daysFromCivil(year: year, month: month, day: day)
        let local = Double(days * 86_400 + hour * 3_600 + minute * 60 + second) + fraction
        return Timestamp(secondsSince1970: local - Double(offset * 60), offsetMinutes: offset)
    }

    /// UTC, with milliseconds only when the time has a fraction: `2026-11-21T10:03:04Z`.
    public static func format(_ date: Date) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(24)
        append(date, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Appends ``format(_:)``'s text of `date` as ASCII bytes, with no string made on the way
    /// (every document with dates writes them so).
    public static func append(_ date: Date, to bytes: inout [UInt8]) {
        let totalMilliseconds = Int((date.timeIntervalSince1970 * 1000).rounded(.down))
        let milliseconds = ((totalMilliseconds % 1000) + 1000) % 1000
        let seconds = (totalMilliseconds - milliseconds) / 1000
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let secondOfDay = seconds - days * 86_400
        let (y, m, d) = civilFromDays(days)
        func digits(_ value: Int, _ width: Int) {
            var text = String(value)
            if text.count < width { text = String(repeating: "0", count: width - text.count) + text }
            bytes.append(contentsOf: text.utf8)
        }
        func two(_ value: Int) {
            bytes.append(UInt8(ascii: "0") + UInt8(value / 10))
            bytes.append(UInt8(ascii: "0") + UInt8(value % 10))
        }
        if (0...9999).contains(y) {
            two(y / 100)
            two(y % 100)
        } else {
            digits(y, 4)
        }
        bytes.append(UInt8(ascii: "-"))
        two(m)
        bytes.append(UInt8(ascii: "-"))
        two(d)
        bytes.append(UInt8(ascii: "T"))
        two(secondOfDay / 3600)
        bytes.append(UInt8(ascii: ":"))
        two(secondOfDay / 60 % 60)
        bytes.append(UInt8(ascii: ":"))
        two(secondOfDay % 60)
        if milliseconds != 0 {
            bytes.append(UInt8(ascii: "."))
            bytes.append(UInt8(ascii: "0") + UInt8(milliseconds / 100))
            two(milliseconds % 100)
        }
        bytes.append(UInt8(ascii: "Z"))
    }

    /// Days in `month` (1–12) of `year`, by the Gregorian leap-year rule.
    public static func daysInMonth(year: Int, month: Int) -> Int {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm).
    public static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let doy = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    static func civilFromDays(_ days: Int) -> (Int, Int, Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let day = doy - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yoe + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}
