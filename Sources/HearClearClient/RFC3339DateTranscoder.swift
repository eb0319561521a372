import Foundation
import OpenAPIRuntime

/// Dates as the HearClear API writes and reads them: RFC 3339 with milliseconds only when there
/// are some (`2026-11-21T10:03:04Z`, `…04.250Z`), read with or without a fraction and with any
/// offset (OpenAPIRuntime's `.iso8601` refuses a fraction, `.iso8601WithFractionalSeconds` its
/// absence, and the server's answers have both).
///
/// A date is written at the offset `timeZone` has at that instant (`2026-11-21T21:03:04+11:00`).
/// The offset is not decoration: the server files a check-in's seconds under the venue's local
/// hour from the venue's time zone, and from each sample's own offset when the venue has none. A
/// phone writes its own zone's; UTC (`Z`) files such a venue's check-ins by UTC hours.
public struct RFC3339DateTranscoder: DateTranscoder {
    public let timeZone: TimeZone

    public init(timeZone: TimeZone) {
        self.timeZone = timeZone
    }

    public func encode(_ date: Date) throws -> String {
        // Whole milliseconds, rounded: a Date made from a time with milliseconds reads them back
        // a hair under or over.
        let milliseconds = Int64((date.timeIntervalSince1970 * 1000).rounded())
        let offsetSeconds = timeZone.secondsFromGMT(for: date)
        let local = milliseconds + Int64(offsetSeconds) * 1000
        let fraction = Int((local % 1000 + 1000) % 1000)
        let seconds = (local - Int64(fraction)) / 1000
        let days = Int((seconds >= 0 ? seconds : seconds - 86_399) / 86_400)
        let secondOfDay = Int(seconds - Int64(days) * 86_400)
        let (year, month, day) = Self.civil(fromDays: days)
        var text = Self.pad(year, 4) + "-" + Self.pad(month, 2) + "-" + Self.pad(day, 2) + "T"
        text += Self.pad(secondOfDay / 3600, 2) + ":" + Self.pad(secondOfDay / 60 % 60, 2) + ":"
        text += Self.pad(secondOfDay % 60, 2)
        if fraction != 0 { text += "." + Self.pad(fraction, 3) }
        guard offsetSeconds != 0 else { return text + "Z" }
        let minutes = abs(offsetSeconds) / 60
        return text + (offsetSeconds < 0 ? "-" : "+") + Self.pad(minutes / 60, 2) + ":" + Self.pad(minutes % 60, 2)
    }

    /// `YYYY-MM-DD(T|t| )HH:MM:SS[.fraction](Z|z|±HH:MM)`.
    public func decode(_ text: String) throws -> Date {
        guard let date = Self.parse(Array(text.utf8)) else {
            throw DecodingError.dataCorrupted(
                .init(codingPath: [], debugDescription: "Expected an RFC 3339 date-time, not \(text)"))
        }
        return date
    }

    private static func parse(_ b: [UInt8]) -> Date? {
        func digits(_ start: Int, _ count: Int) -> Int? {
            guard start + count <= b.count else { return nil }
            var value = 0
            for byte in b[start..<start + count] {
                guard (48...57).contains(byte) else { return nil }
                value = value * 10 + Int(byte - 48)
            }
            return value
        }
        guard b.count >= 20, let year = digits(0, 4), b[4] == 45, let month = digits(5, 2), b[7] == 45,
            let day = digits(8, 2), [84, 116, 32].contains(b[10]), let hour = digits(11, 2), b[13] == 58,
            let minute = digits(14, 2), b[16] == 58, let second = digits(17, 2),
            (1...12).contains(month), (1...31).contains(day), hour <= 23, minute <= 59, second <= 60
        else { return nil }
        var index = 19
        var fraction = 0.0
        if b[index] == 46 {
            var scale = 0.1
            index += 1
            let start = index
            while index < b.count, (48...57).contains(b[index]) {
                fraction += Double(b[index] - 48) * scale
                scale /= 10
                index += 1
            }
            guard index > start else { return nil }
        }
        guard index < b.count else { return nil }
        var offset = 0
        if b[index] == 90 || b[index] == 122 {
            index += 1
        } else if b[index] == 43 || b[index] == 45, let hours = digits(index + 1, 2), index + 3 < b.count,
            b[index + 3] == 58, let minutes = digits(index + 4, 2)
        {
            offset = (hours * 60 + minutes) * 60 * (b[index] == 45 ? -1 : 1)
            index += 6
        } else {
            return nil
        }
        guard index == b.count else { return nil }
        let local = Double(days(year: year, month: month, day: day) * 86_400 + hour * 3600 + minute * 60 + second)
        return Date(timeIntervalSince1970: local + fraction - Double(offset))
    }

    private static func pad(_ value: Int, _ width: Int) -> String {
        let text = String(value)
        return String(repeating: "0", count: max(0, width - text.count)) + text
    }

    /// Days since 1970-01-01 of a proleptic Gregorian date, and back (Howard Hinnant's algorithms).
    private static func days(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        return era * 146_097 + yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear - 719_468
    }

    private static func civil(fromDays days: Int) -> (year: Int, month: Int, day: Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}

extension DateTranscoder where Self == RFC3339DateTranscoder {
    /// RFC 3339 at the offset of `timeZone` (see ``RFC3339DateTranscoder``).
    public static func rfc3339(timeZone: TimeZone) -> Self { RFC3339DateTranscoder(timeZone: timeZone) }
}
