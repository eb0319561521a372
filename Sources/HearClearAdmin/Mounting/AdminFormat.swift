import Foundation
import LoudnessCore

/// How the admin pages write numbers, times and ids.
enum AdminFormat {
    /// `2026-11-21 21:03:04 UTC`.
    static func time(_ date: Date) -> String {
        let iso = date.formatted(Date.ISO8601FormatStyle(timeZone: .gmt))
        return iso.replacingOccurrences(of: "T", with: " ").replacingOccurrences(of: "Z", with: " UTC")
    }

    static func time(_ date: Date?) -> String {
        date.map { time($0) } ?? "–"
    }

    /// `2026-11-21 21:03`, UTC: for lists, where the column header says UTC.
    static func minute(_ date: Date?) -> String {
        guard let date else { return "–" }
        return String(time(date).prefix(16))
    }

    /// A duration in the largest sensible unit: `42 s`, `5 min`, `3 h`, `2 d`.
    static func age(_ seconds: Double) -> String {
        let seconds = max(0, seconds)
        if seconds < 120 { return "\(Int(seconds)) s" }
        if seconds < 7200 { return "\(Int(seconds / 60)) min" }
        if seconds < 172_800 { return "\(Int(seconds / 3600)) h" }
        return "\(Int(seconds / 86400)) d"
    }

    /// `1,234,567`.
    static func count(_ value: Int) -> String {
        let digits = Array(String(abs(value)))
        var grouped = ""
        for (index, digit) in digits.enumerated() {
            if index > 0, (digits.count - index) % 3 == 0 { grouped.append(",") }
            grouped.append(digit)
        }
        return (value < 0 ? "-" : "") + grouped
    }

    /// One decimal: `77.4`; `–` for none.
    static func decimal(_ value: Double?) -> String {
        guard let value, value.isFinite else { return "–" }
        return String(format: "%.1f", value)
    }

    /// A signed value with one decimal: `+3.2`, `−1.0`.
    static func signed(_ value: Double?) -> String {
        guard let value, value.isFinite else { return "–" }
        let text = String(format: "%.1f", abs(value))
        return (value < 0 ? "−" : "+") + text
    }

    /// `part / total` as a whole percentage: `83 %`; `–` when the total is 0.
    static func percent(_ part: Int, of total: Int) -> String {
        guard total > 0 else { return "–" }
        return "\(Int((Double(part) * 100 / Double(total)).rounded())) %"
    }

    /// The first block of a check-in id, for lists (the page itself shows it whole).
    static func shortCheckinID(_ id: UUID) -> String {
        String(id.uuidString.lowercased().prefix(8))
    }

    /// Reasons as people read them: `too_far_from_venue` → `too far from venue`.
    /// `nil` without reasons, so that a template section shows nothing.
    static func reasons(_ reasons: [JudgementReason]) -> String? {
        guard !reasons.isEmpty else { return nil }
        return reasons.map { $0.rawValue.replacingOccurrences(of: "_", with: " ") }.joined(separator: ", ")
    }

    /// A query parameter value, percent-encoded.
    static func queryValue(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: unreserved) ?? ""
    }

    /// RFC 3986's unreserved characters, ASCII only.
    static let unreserved = CharacterSet(
        charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~"
    )
}

extension AdminFormat {
    /// A band bound as typed back into the editor: `70`, `72.5`.
    static func bound(_ value: Double) -> String {
        let tenths = (value * 10).rounded() / 10
        return tenths == tenths.rounded() ? String(Int(tenths)) : String(format: "%.1f", tenths)
    }
}

extension AdminFormat {
    /// A calibration offset with its sign and two decimals: `+10.00 dB`, `−1.25 dB`; `–` for
    /// none. Two decimals though the methods are good to 0.1 dB, so that two figures that agree
    /// can be seen to agree; a value that rounds to zero is `+0.00`.
    static func offset(_ value: Double?) -> String {
        guard let value, value.isFinite else { return "–" }
        let hundredths = (value * 100).rounded() / 100
        return (hundredths < 0 ? "−" : "+") + String(format: "%.2f", abs(hundredths)) + " dB"
    }

    /// An unsigned level or spread with two decimals: `0.85 dB`; `–` for none.
    static func decibels(_ value: Double?) -> String {
        guard let value, value.isFinite else { return "–" }
        return String(format: "%.2f", value) + " dB"
    }
}
