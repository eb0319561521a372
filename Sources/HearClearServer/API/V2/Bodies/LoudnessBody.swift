import Foundation
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
        @KeepsNull var character: Character?
    }

    /// `{"classes": {"babble": 0.4, …}, "lcMinusLa": 12.1, "la90": 61.0, "conversation": "raised voices",
    /// "seconds": 180, "basis": "spectra rules"}`.
    struct Character: Encodable {
        var classes: [String: Double]
        /// What the classes rest on: `phone classes`, `spectra rules` or `both`
        /// (docs/ARCHITECTURE.md, "The phone's own classes").
        var basis: String
        /// Null without LCeq.
        @KeepsNull var lcMinusLa: Double?
        var la90: Double
        var conversation: String
        var seconds: Int

        init(_ character: LoudnessReads.Character) {
            classes = Dictionary(uniqueKeysWithValues: character.shares.map { ($0.key.rawValue, $0.value) })
            lcMinusLa = character.lcMinusLaDB
            la90 = character.la90DB
            conversation = character.conversation.rawValue
            seconds = character.seconds
            basis = character.basis.rawValue
        }
    }

    var venue: String
    @KeepsNull var timezone: String?
    /// When a lasting change of the venue's level was detected; null when none is in force.
    @KeepsNull var changedAt: Date?
    var unit = "dB"
    var bands: [Band]
    var days: [Day]

    init(venue: String, timezone: String?, changedAt: Date? = nil, bands: Bands, cells: [LoudnessReads.Cell]) {
        self.venue = venue
        self.timezone = timezone
        self.changedAt = changedAt
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
}

/// `GET /api/v2/bands`: the bands in force, calibrated dB, quietest first.
struct BandsBody: Encodable {
    var unit = "dB"
    var bands: [Band]
}
