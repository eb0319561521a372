import Foundation
import HearClearEngine
import LoudnessCore

/// A venue's week (weekday × venue-local hour) as an SVG heat map and as the rows of a table
/// with the same data: every square and every cell carries its level and band in text, colour
/// is never the only carrier; estimated cells are marked "est.".
struct WeekChart {
    static let cell = 32.0
    static let left = 44.0
    static let top = 20.0

    let cells: [LocalHour: LoudnessReads.Cell]
    let bands: Bands

    init(cells: [LoudnessReads.Cell], bands: Bands) {
        self.cells = Dictionary(cells.map { ($0.localHour, $0) }, uniquingKeysWith: { first, _ in first })
        self.bands = bands
    }

    func bandIndex(_ cell: LoudnessReads.Cell) -> Int {
        bands.bands.firstIndex { $0.label == cell.label } ?? 0
    }

    /// The SVG, standalone (`xmlns`) so that `week.svg` serves it as it is; colours are
    /// attributes, not styles, so that it needs no style sheet.
    func svg(title: String) -> String {
        let width = Self.left + 24 * Self.cell
        let height = Self.top + 7 * Self.cell + 26
        var out = """
            <svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 \(Int(width)) \(Int(height))" role="img" \
            aria-labelledby="week-title" font-family="sans-serif" font-size="11">\
            <title id="week-title">\(PlainWords.escaped(title))</title>
            """
        for hour in stride(from: 0, to: 24, by: 3) {
            let x = Self.left + (Double(hour) + 0.5) * Self.cell
            out += "<text x=\"\(x)\" y=\"14\" text-anchor=\"middle\" fill=\"#111111\">\(PlainWords.hour(hour))</text>"
        }
        for weekday in 1...7 {
            let y = Self.top + (Double(weekday) - 0.5) * Self.cell
            out +=
                "<text x=\"4\" y=\"\(y)\" dominant-baseline=\"middle\" fill=\"#111111\">\(PlainWords.shortDayNames[weekday - 1])</text>"
            for hour in 0..<24 {
                let x = Self.left + Double(hour) * Self.cell
                let y0 = Self.top + Double(weekday - 1) * Self.cell
                let centre = x + Self.cell / 2
                guard let cell = cells[LocalHour(weekday: weekday, hour: hour)] else {
                    out +=
                        "<rect x=\"\(x)\" y=\"\(y0)\" width=\"\(Self.cell - 1)\" height=\"\(Self.cell - 1)\" fill=\"#f2f2f2\"/>"
                    continue
                }
                let colours = PlainWords.colours(band: bandIndex(cell), of: bands.bands.count)
                let name = "\(PlainWords.dayNames[weekday - 1]) \(PlainWords.hour(hour))"
                let words =
                    "\(name): \(PlainWords.decibels(cell.levelDB)), \(cell.label)"
                    + (cell.estimated ? ", estimated" : ", \(cell.checkins) check-ins")
                out += "<g><title>\(PlainWords.escaped(words))</title>"
                out +=
                    "<rect x=\"\(x)\" y=\"\(y0)\" width=\"\(Self.cell - 1)\" height=\"\(Self.cell - 1)\" fill=\"\(colours.fill)\"/>"
                out +=
                    "<text x=\"\(centre)\" y=\"\(y0 + 14)\" text-anchor=\"middle\" fill=\"\(colours.text)\">\(Int(cell.levelDB.rounded()))</text>"
                let mark = cell.estimated ? "est." : PlainWords.escaped(String(cell.label.prefix(4)))
                out +=
                    "<text x=\"\(centre)\" y=\"\(y0 + 26)\" text-anchor=\"middle\" font-size=\"8\" fill=\"\(colours.text)\">\(mark)</text></g>"
            }
        }
        // The key: each band's colour with its name.
        var x = Self.left
        let y = Self.top + 7 * Self.cell + 8
        for (index, band) in bands.bands.enumerated() {
            let colours = PlainWords.colours(band: index, of: bands.bands.count)
            out += "<rect x=\"\(x)\" y=\"\(y)\" width=\"14\" height=\"14\" fill=\"\(colours.fill)\"/>"
            out += "<text x=\"\(x + 18)\" y=\"\(y + 11)\" fill=\"#111111\">\(PlainWords.escaped(band.label))</text>"
            x += 24 + Double(band.label.count) * 7
        }
        out += "</svg>"
        return out
    }

    /// One row of the table: an hour, and the seven days' cells.
    struct Row {
        let hour: String
        let days: [Entry]
    }

    struct Entry {
        let text: String
        let estimated: Bool
        let empty: Bool
        let colourClass: String
    }

    /// The table: a row per hour, a column per day (narrow enough to scroll less on a phone).
    var rows: [Row] {
        (0..<24).map { hour in
            Row(
                hour: PlainWords.hour(hour),
                days: (1...7).map { weekday in
                    guard let cell = cells[LocalHour(weekday: weekday, hour: hour)] else {
                        return Entry(text: "no data", estimated: false, empty: true, colourClass: "")
                    }
                    return Entry(
                        text: "\(Int(cell.levelDB.rounded())) dB \(cell.label)", estimated: cell.estimated,
                        empty: false, colourClass: Self.colourClass(cell, bands: bands))
                })
        }
    }

    /// The style sheet's class (`c0`…`c6`) of the colour of a cell's band.
    static func colourClass(_ cell: LoudnessReads.Cell, bands: Bands) -> String {
        colourClass(label: cell.label, bands: bands)
    }

    /// The style sheet's class of the colour of the band labelled `label`.
    static func colourClass(label: String, bands: Bands) -> String {
        let index = bands.bands.firstIndex { $0.label == label } ?? 0
        let fill = PlainWords.colours(band: index, of: bands.bands.count).fill
        return "c\(PlainWords.palette.firstIndex { $0.fill == fill } ?? 0)"
    }

    /// What a result's strip (its week at one venue-local hour) shows of each band: the colour
    /// class and the level in words for screen readers, made once a page rather than for each of
    /// its 140 days (``HomeContent``).
    struct StripBands {
        private var colours: [String: String] = [:]
        private var words: [String: String] = [:]

        init(bands: Bands) {
            for band in bands.bands {
                colours[band.label] = WeekChart.colourClass(label: band.label, bands: bands)
                words[band.label] = PlainWords.level(label: band.label).lowercased()
            }
        }

        /// The class of the cell's band (`c0`…`c6`).
        func colour(_ cell: LoudnessReads.Cell, bands: Bands) -> String {
            colours[cell.label] ?? WeekChart.colourClass(cell, bands: bands)
        }

        /// The cell's band in words, lower case.
        func levelWords(_ cell: LoudnessReads.Cell) -> String {
            words[cell.label] ?? PlainWords.level(label: cell.label).lowercased()
        }
    }

    /// The quietest hours in words: the runs of consecutive hours within 2 dB of the quietest
    /// level, the three quietest runs, e.g. `Tuesday 15:00–18:00`.
    var quietest: [String] {
        guard let lowest = cells.values.map(\.levelDB).min() else { return [] }
        var runs: [(weekday: Int, start: Int, end: Int, mean: Double)] = []
        for weekday in 1...7 {
            var start: Int?
            var levels: [Double] = []
            for hour in 0...24 {
                let cell = hour < 24 ? cells[LocalHour(weekday: weekday, hour: hour)] : nil
                if let cell, cell.levelDB <= lowest + 2 {
                    if start == nil { start = hour }
                    levels.append(cell.levelDB)
                } else if let first = start {
                    runs.append((weekday, first, hour, levels.reduce(0, +) / Double(levels.count)))
                    start = nil
                    levels = []
                }
            }
        }
        return runs.sorted { ($0.mean, $0.weekday, $0.start) < ($1.mean, $1.weekday, $1.start) }.prefix(3).map {
            "\(PlainWords.dayNames[$0.weekday - 1]) \(PlainWords.hour($0.start))–\(PlainWords.hour($0.end))"
        }
    }
}
