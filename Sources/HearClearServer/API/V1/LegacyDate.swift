import Foundation
import HearClearEngine

/// The 2013 client's `sampleDate`: `dd-MM-yyyy HH:mm:ss z`, where `z` is the phone's short
/// zone name: `GMT+11:00`, `GMT+11`, `GMT+1100`, `GMT`, `UTC`, `UTC+5:30`, or an abbreviation.
enum LegacyDate {
    struct Parsed: Equatable {
        var secondsSince1970: Double
        var offsetMinutes: Int
        /// The zone could not be resolved and the fallback was used.
        var zoneGuessed: Bool
    }

    /// Fixed offsets (minutes) of the abbreviations phones print. Ambiguous ones take their most
    /// common meaning (CST: US Central; IST: India).
    static let abbreviations: [String: Int] = [
        "UTC": 0, "GMT": 0, "UT": 0, "Z": 0, "WET": 0, "WEST": 60, "BST": 60, "IST": 330, "CET": 60, "CEST": 120,
        "MET": 60, "MEST": 120, "EET": 120, "EEST": 180, "MSK": 180, "GST": 240, "PKT": 300, "ICT": 420,
        "WIB": 420, "HKT": 480, "SGT": 480, "AWST": 480, "CST": -360, "CDT": -300, "JST": 540, "KST": 540,
        "ACST": 570, "ACDT": 630, "AEST": 600, "AEDT": 660, "NZST": 720, "NZDT": 780, "EST": -300, "EDT": -240,
        "MST": -420, "MDT": -360, "PST": -480, "PDT": -420, "AKST": -540, "AKDT": -480, "HST": -600,
        "AST": -240, "ADT": -180, "NST": -210, "NDT": -150, "BRT": -180, "ART": -180,
    ]

    /// Parses `text`; an unknown zone falls back to `fallbackZone` (the venue's) or UTC.
    static func parse(_ text: String, fallbackZone: TimeZone?) -> Parsed? {
        let parts = text.split(separator: " ", omittingEmptySubsequences: true)
        guard parts.count == 3 else { return nil }
        let date = parts[0].split(separator: "-")
        let time = parts[1].split(separator: ":")
        guard date.count == 3, time.count == 3, let day = Int(date[0]), let month = Int(date[1]),
            let year = Int(date[2]), let hour = Int(time[0]), let minute = Int(time[1]), let second = Int(time[2]),
            (1...12).contains(month), day >= 1, day <= RFC3339.daysInMonth(year: year, month: month), hour < 24,
            minute < 60, second < 60, year >= 1970, year < 10000
        else { return nil }
        let local =
            RFC3339.daysFromCivil(year: year, month: month, day: day) * 86_400 + hour * 3600 + minute * 60
            + second
        if let offset = offset(of: String(parts[2])) {
            return Parsed(secondsSince1970: Double(local - offset * 60), offsetMinutes: offset, zoneGuessed: false)
        }
        let zone = fallbackZone ?? TimeZone(identifier: "UTC")!
        // The offset in force at that local time: guess from the UTC reading, then correct once.
        var offset = zone.secondsFromGMT(for: Date(timeIntervalSince1970: Double(local)))
        offset = zone.secondsFromGMT(for: Date(timeIntervalSince1970: Double(local - offset)))
        return Parsed(secondsSince1970: Double(local - offset), offsetMinutes: offset / 60, zoneGuessed: true)
    }

    /// Minutes east of UTC for `GMT±h[:mm]`, `UTC±hhmm`, a bare `±hh:mm` or a known abbreviation.
    static func offset(of zone: String) -> Int? {
        let upper = zone.uppercased()
        if let fixed = abbreviations[upper] { return fixed }
        var rest = Substring(upper)
        for prefix in ["GMT", "UTC"] where rest.hasPrefix(prefix) { rest = rest.dropFirst(prefix.count) }
        guard let sign = rest.first, sign == "+" || sign == "-" else { return nil }
        let digits = rest.dropFirst()
        var hours: Int?
        var minutes = 0
        if let colon = digits.firstIndex(of: ":") {
            hours = Int(digits[..<colon])
            guard let m = Int(digits[digits.index(after: colon)...]) else { return nil }
            minutes = m
        } else if digits.count == 4 {
            hours = Int(digits.prefix(2))
            minutes = Int(digits.suffix(2)) ?? 99
        } else if (1...2).contains(digits.count) {
            hours = Int(digits)
        }
        guard let hours, hours <= 14, minutes < 60 else { return nil }
        return (hours * 60 + minutes) * (sign == "-" ? -1 : 1)
    }
}
