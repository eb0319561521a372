import HearClearEngine
import LoudnessCore

/// `GET /api/v2/venues/{venueId}/loudness`: the weekday × hour grid in venue-local time, calibrated
/// dB, only cells with data or an estimate (`estimated`), days Monday…Sunday (docs/ARCHITECTURE.md, "API v2 rules").
struct LoudnessBody: Encodable {
    struct Day: Encodable {
        var day: String
        var hours: [Hour]
    }

    struct Hour: Encodable {
        var hour: Int
        var level: Double
        var label: String
        var range: [Double]
        var checkins: Int
        var devices: Int
        var confidence: String
        /// No check-ins of its own: predicted (docs/ARCHITECTURE.md, "Estimates for empty cells").
        var estimated: Bool
        /// What an estimate rests on (`venue_pattern`, `category_nearby`); absent for a measured cell.
        var basis: String?
        /// What kind of loud the cell is; null when it has none (docs/ARCHITECTURE.md, "Sound character").
        var character: Character?

        func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(hour, forKey: .hour)
            try c.encode(level, forKey: .level)
            try c.encode(label, forKey: .label)
            try c.encode(range, forKey: .range)
            try c.encode(checkins, forKey: .checkins)
            try c.encode(devices, forKey: .devices)
            try c.encode(confidence, forKey: .confidence)
            try c.encode(estimated, forKey: .estimated)
            try c.encodeIfPresent(basis, forKey: .basis)
            try c.encode(character, forKey: .character)  // an explicit null
        }

        enum CodingKeys: String, CodingKey {
            case hour, level, label, range, checkins, devices, confidence, estimated, basis, character
        }
    }

    /// `{"classes": {"babble": 0.4, …}, "lcMinusLa": 12.1, "la90": 61.0, "conversation": "raised voices",
    /// "seconds": 180}`.
    struct Character: Encodable {
        var classes: [String: Double]
        var lcMinusLa: Double?
        var la90: Double
        var conversation: String
        var seconds: Int

        init(_ character: LoudnessReads.Character) {
            classes = Dictionary(uniqueKeysWithValues: character.shares.map { ($0.key.rawValue, $0.value) })
            lcMinusLa = character.lcMinusLaDB
            la90 = character.la90DB
            conversation = character.conversation.rawValue
            seconds = character.seconds
        }

        func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(classes, forKey: .classes)
            try c.encode(lcMinusLa, forKey: .lcMinusLa)  // an explicit null without LCeq
            try c.encode(la90, forKey: .la90)
            try c.encode(conversation, forKey: .conversation)
            try c.encode(seconds, forKey: .seconds)
        }

        enum CodingKeys: String, CodingKey { case classes, lcMinusLa, la90, conversation, seconds }
    }

    var venue: String
    var timezone: String?
    var unit = "dB"
    var bands: [Band]
    var days: [Day]

    init(venue: String, timezone: String?, bands: Bands, cells: [LoudnessReads.Cell]) {
        self.venue = venue
        self.timezone = timezone
        self.bands = bands.bands
        let byDay = Dictionary(grouping: cells, by: \.localHour.weekday)
        days = (1...7).compactMap { weekday in
            guard let cells = byDay[weekday], !cells.isEmpty else { return nil }
            return Day(
                day: LocalHour.weekdayNames[weekday - 1],
                hours: cells.sorted { $0.localHour < $1.localHour }.map { cell in
                    Hour(
                        hour: cell.localHour.hour, level: cell.levelDB, label: cell.label,
                        range: [cell.rangeDB.lowerBound, cell.rangeDB.upperBound], checkins: cell.checkins,
                        devices: cell.devices, confidence: cell.confidence, estimated: cell.estimated,
                        basis: cell.basis?.rawValue, character: cell.character.map(Character.init))
                })
        }
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(venue, forKey: .venue)
        try container.encode(timezone, forKey: .timezone)
        try container.encode(unit, forKey: .unit)
        try container.encode(bands, forKey: .bands)
        try container.encode(days, forKey: .days)
    }

    enum CodingKeys: String, CodingKey {
        case venue, timezone, unit, bands, days
    }
}

/// `GET /api/v2/bands`: the bands in force, calibrated dB, quietest first.
struct BandsBody: Encodable {
    var unit = "dB"
    var bands: [Band]
}
