import Foundation
import HearClearEngine
import LoudnessCore

/// Levels, bands and hours in plain words, and the colours of the bands.
enum PlainWords {
    static let dayNames = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]
    static let shortDayNames = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]

    /// A band's label as a sentence: what it means for talking. Labels the server does not
    /// know words for (bands are configurable) are shown as they are.
    static func level(label: String) -> String {
        switch label {
        case "quiet": "Quiet — easy to talk"
        case "moderate": "Moderate — you can talk, a little louder than usual"
        case "loud": "Loud — you will need to raise your voice"
        case "very loud": "Very loud — hard to talk, even raising your voice"
        default: label.prefix(1).uppercased() + label.dropFirst()
        }
    }

    /// The conversation band in words.
    static func conversation(_ band: ConversationBand) -> String {
        switch band {
        case .easy: "easy to talk"
        case .raisedVoices: "raised voices needed"
        case .hard: "hard to talk"
        }
    }

    /// A cell's conversation band: its sound character's when it has one, else what its level
    /// alone gives (the same thresholds).
    static func conversationBand(_ cell: LoudnessReads.Cell) -> ConversationBand {
        cell.character?.conversation ?? ConversationBand(calibratedDB: cell.levelDB)
    }

    static func hour(_ hour: Int) -> String { hour < 10 ? "0\(hour):00" : "\(hour):00" }

    /// The options of a day `<select>` (ISO weekdays, Monday 1), `selected` marked.
    static func dayOptions(selected: Int?) -> [PageOption] {
        dayNames.enumerated().map { index, name in
            PageOption(value: index + 1, name: name, selected: selected == index + 1)
        }
    }

    /// The options of an hour `<select>` (0–23 as `HH:00`), `selected` marked.
    static func hourOptions(selected: Int?) -> [PageOption] {
        (0..<24).map { value in PageOption(value: value, name: hour(value), selected: selected == value) }
    }

    /// `72.4 dB`.
    static func decibels(_ level: Double) -> String { fixed(level, decimals: 1) + " dB" }

    /// `350 m`, `1.2 km`.
    static func distance(_ metres: Double) -> String {
        metres < 1_000 ? "\(Int(metres.rounded())) m" : fixed(metres / 1_000, decimals: 1) + " km"
    }

    static func soundClass(_ label: SoundClass) -> String {
        label.rawValue.replacingOccurrences(of: "_", with: " ")
    }

    /// A viridis-like palette (colour-blind safe, light to dark) and the text colour on each:
    /// every pair has a contrast of at least 4.5:1.
    static let palette: [(fill: String, text: String)] = [
        ("#fde725", "#111111"), ("#90d743", "#111111"), ("#35b779", "#111111"), ("#21918c", "#111111"),
        ("#31688e", "#ffffff"), ("#443983", "#ffffff"), ("#440154", "#ffffff"),
    ]

    /// The colours of band `index` of `count`, spread over the palette.
    static func colours(band index: Int, of count: Int) -> (fill: String, text: String) {
        guard count > 1 else { return palette[0] }
        let position = Int((Double(index) * Double(palette.count - 1) / Double(count - 1)).rounded())
        return palette[min(max(position, 0), palette.count - 1)]
    }

    /// `value` with `decimals` digits after the point (0–9), rounded half away from zero: what
    /// `String(format: "%.Nf")` writes but for values exactly half-way in binary, without
    /// Foundation's formatter (a microsecond a number, thousands on a page of results).
    static func fixed(_ value: Double, decimals: Int) -> String {
        guard value.isFinite else { return String(value) }
        var scale = 1.0
        for _ in 0..<decimals { scale *= 10 }
        let scaled = (abs(value) * scale).rounded()
        guard scaled < 9.0e15 else { return String(value) }
        let whole = Int64(scaled)
        let unit = Int64(scale)
        var digits = String(whole % unit)
        if digits.count < decimals { digits = String(repeating: "0", count: decimals - digits.count) + digits }
        let sign = value.sign == .minus ? "-" : ""
        return decimals == 0 ? sign + String(whole) : sign + String(whole / unit) + "." + digits
    }

    /// `text` escaped for HTML and XML text and attribute values.
    static func escaped(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.count)
        for character in text {
            switch character {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default: out.append(character)
            }
        }
        return out
    }
}
