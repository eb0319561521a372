import Foundation
import HearClearEngine
import LoudnessCore

/// A venue's weekday × hour grid laid out for the SVG of `heatmap.mustache`: one square per
/// cell with data, coloured by its band, showing its level (dB) and check-in count; estimated
/// cells (no check-ins of their own) are hatched and marked "est."; empty hours stay grey. Cells come from `LoudnessReads`, so levels and labels are the ones the API reports.
struct HeatMap {
    struct Square {
        let x: String
        let y: String
        let textX: String
        let levelY: String
        let countY: String
        let band: Int
        let dark: Bool
        let level: String
        let count: String
        let title: String
        let estimated: Bool
    }

    struct Label {
        let position: String
        let text: String
    }

    struct LegendEntry {
        let band: Int
        let label: String
    }

    struct Row {
        let day: String
        let hour: String
        let level: String
        let label: String
        let checkins: Int
        let devices: Int
        let confidence: String
        let basis: String
        /// The cell's sound character, when it has one.
        let character: CharacterText?
    }

    /// A cell's sound character in words (docs/ARCHITECTURE.md, "Sound character").
    struct CharacterText {
        /// `bass-heavy music 52 %, steady noise 48 %`: the labels with seconds, most first.
        let classes: String
        let lcMinusLa: String
        let la90: String
        let conversation: String
        let evidence: String

        init(_ character: LoudnessReads.Character) {
            classes = SoundClass.allCases
                .compactMap { label in character.shares[label].flatMap { $0 > 0 ? (label, $0) : nil } }
                .sorted { $0.1 > $1.1 }
                .map { "\(Spectrogram.name($0.0)) \(Int(($0.1 * 100).rounded())) %" }
                .joined(separator: ", ")
            lcMinusLa = character.lcMinusLaDB.map { AdminFormat.decimal($0) + " dB" } ?? "–"
            la90 = AdminFormat.decimal(character.la90DB) + " dB"
            conversation = character.conversation.rawValue
            evidence = "\(character.seconds) s of \(character.checkins) check-ins"
        }

        /// One line, for a square's title.
        var line: String {
            "\(classes); LC − LA \(lcMinusLa), LA90 \(la90); talking: \(conversation) (\(evidence))"
        }
    }

    static let cell = 30.0
    static let left = 40.0
    static let top = 18.0
    static let days = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]

    let width = HeatMap.left + 24 * HeatMap.cell
    let height = HeatMap.top + 7 * HeatMap.cell
    let size = HeatMap.cell
    let empty: [Square]
    let squares: [Square]
    let dayLabels: [Label]
    let hourLabels: [Label]
    let legend: [LegendEntry]
    let rows: [Row]
    let cellCount: Int
    let estimatedCount: Int
    let hasEstimates: Bool
    /// Cells with a sound character (stored, not computed: templates see stored properties only).
    let characterCount: Int
    let hasCharacter: Bool

    init(cells: [LoudnessReads.Cell], bands: Bands) {
        let byHour = Dictionary(cells.map { ($0.localHour, $0) }, uniquingKeysWith: { first, _ in first })
        var empty: [Square] = []
        var squares: [Square] = []
        for weekday in 1...7 {
            for hour in 0..<24 {
                let x = Self.left + Double(hour) * Self.cell
                let y = Self.top + Double(weekday - 1) * Self.cell
                guard let cell = byHour[LocalHour(weekday: weekday, hour: hour)] else {
                    empty.append(Self.square(x: x, y: y, band: 0, level: "", count: "", title: "", estimated: false))
                    continue
                }
                let band = bands.bands.firstIndex { $0.label == cell.label } ?? 0
                let evidence =
                    cell.estimated
                    ? "estimated from \(Self.basisText(cell.basis)), no check-ins of its own"
                    : "\(cell.checkins) check-ins, \(cell.devices) devices"
                let title =
                    "\(Self.days[weekday - 1]) \(hour):00 · \(AdminFormat.decimal(cell.levelDB)) dB \(cell.label) · "
                    + "\(evidence) · \(cell.confidence) confidence"
                    + (cell.character.map { " · " + CharacterText($0).line } ?? "")
                squares.append(
                    Self.square(
                        x: x, y: y, band: band, level: String(Int(cell.levelDB.rounded())),
                        count: cell.estimated ? "est." : "×\(cell.checkins)", title: title, estimated: cell.estimated
                    )
                )
            }
        }
        self.empty = empty
        self.squares = squares
        dayLabels = Self.days.enumerated().map { index, day in
            Label(position: CheckinChart.text(Self.top + (Double(index) + 0.5) * Self.cell), text: day)
        }
        hourLabels = stride(from: 0, to: 24, by: 3).map { hour in
            Label(position: CheckinChart.text(Self.left + (Double(hour) + 0.5) * Self.cell), text: "\(hour)h")
        }
        legend = bands.bands.enumerated().map { LegendEntry(band: min($0.offset, 5), label: $0.element.label) }
        rows = cells.map { cell in
            Row(
                day: Self.days[cell.localHour.weekday - 1], hour: "\(cell.localHour.hour):00",
                level: AdminFormat.decimal(cell.levelDB), label: cell.label, checkins: cell.checkins,
                devices: cell.devices, confidence: cell.confidence, basis: Self.basisText(cell.basis),
                character: cell.character.map(CharacterText.init)
            )
        }
        characterCount = cells.count { $0.character != nil }
        hasCharacter = characterCount > 0
        estimatedCount = cells.count { $0.estimated }
        hasEstimates = estimatedCount > 0
        cellCount = cells.count - estimatedCount
    }

    /// How the admin names what a cell rests on.
    static func basisText(_ basis: PatternEstimate.Basis?) -> String {
        switch basis {
        case nil: "check-ins"
        case .venuePattern: "the venue's weekday and hour pattern"
        case .categoryNearby: "venues of its category nearby"
        case .afterChange: "its check-ins before the venue's change, moved by the change"
        }
    }

    private static func square(
        x: Double, y: Double, band: Int, level: String, count: String, title: String, estimated: Bool
    ) -> Square {
        Square(
            x: CheckinChart.text(x), y: CheckinChart.text(y), textX: CheckinChart.text(x + cell / 2),
            levelY: CheckinChart.text(y + cell * 0.38), countY: CheckinChart.text(y + cell * 0.74),
            band: min(band, 5), dark: band >= 3, level: level, count: count, title: title, estimated: estimated
        )
    }
}
