import Foundation
import HearClearEngine
import LoudnessCore

/// The third-octave spectrogram of a check-in that carries bands, and the labelled windows of its
/// sound character, laid out on the server for the SVG in `checkin.mustache` (docs/ARCHITECTURE.md,
/// "Sound character"): one row per band carried (lowest at the bottom), one column per second on
/// the time scale of ``CheckinChart``, coloured in ten steps of level; seconds that cleaning removed
/// hatched over it with their reason; under it, each window of kept seconds coloured by its label,
/// with the rule and the features behind it in its title and in a table. Levels are calibrated dB
/// (band levels are Z-weighted).
struct Spectrogram {
    struct Rect {
        let x: String
        let y: String
        let width: String
        let height: String
        let step: Int
        let title: String
    }

    struct Window {
        let x: String
        let width: String
        let textX: String
        let label: String
        let name: String
        let short: String
        let showsText: Bool
        let title: String
        let time: String
        let seconds: Int
        let reason: String
        let laeq: String
        let lcMinusLa: String
        let excess: String
        let flatness: String
        let shape: String
    }

    struct Swatch {
        let step: Int
        let label: String
    }

    struct LegendEntry {
        let label: String
        let name: String
        let seconds: String
    }

    /// Most columns drawn: past it, seconds are pooled (energetic mean) into wider columns.
    static let maximumColumns = 332
    static let steps = 10
    static let top = 10.0
    static let rowsHeight = 192.0
    static let windowsTop = 208.0
    static let windowsHeight = 22.0
    static let height = 256.0

    let width = CheckinChart.width
    let height = Self.height
    let plotLeft = CheckinChart.left
    let plotTop = Self.top
    let plotHeight = Self.rowsHeight
    let windowsTop = Self.windowsTop
    let windowsHeight = Self.windowsHeight
    let windowsTextY = CheckinChart.text(Self.windowsTop + Self.windowsHeight / 2)
    let labelX = CheckinChart.left - 6
    let axisLabelY = Self.height - 4
    let hasBands: Bool
    let cells: [Rect]
    let removed: [CheckinChart.Column]
    let bandTicks: [CheckinChart.Tick]
    let xTicks: [CheckinChart.Tick]
    let swatches: [Swatch]
    let windows: [Window]
    let legend: [LegendEntry]
    let summary: String

    /// - Parameter offsetDB: added to every dBFS value (model offset + reference offset).
    init(
        samples: SessionSamples, rejections: [SecondRejection?], sound: CheckinAnalysis.Sound, offsetDB: Double
    ) {
        let spectra = sound.spectra
        let offsets = samples.offsetsSeconds
        let duration = max(offsets.last ?? 1, 1)
        let scale = CheckinChart.Scale(low: 0, high: 1, duration: duration)
        let kept = rejections.map { $0 == nil }
        hasBands = !spectra.bandIndexes.isEmpty

        let colours = ColourSteps(spectra: spectra, kept: kept, offsetDB: offsetDB)
        swatches = colours.swatches

        let bands = spectra.bandIndexes.count
        let rowHeight = bands > 0 ? Self.rowsHeight / Double(bands) : Self.rowsHeight
        // Columns of `pool` seconds each.
        let pool = max(1, Int((duration + 1) / Double(Self.maximumColumns)) + 1)
        cells = (0..<bands).flatMap { position in
            Self.row(
                position, spectra: spectra, offsets: offsets, offsetDB: offsetDB, pool: pool, colours: colours,
                rowHeight: rowHeight, scale: scale)
        }
        removed = CheckinChart.columns(offsets: offsets, rejections: rejections, scale: scale)
        bandTicks = spectra.bandIndexes.enumerated().compactMap { position, band in
            // Octave centres only, so the labels never crowd.
            guard [1, 4, 7, 10, 13, 16, 19, 22].contains(band) else { return nil }
            let y = Self.top + Self.rowsHeight - (Double(position) + 0.5) * rowHeight
            return CheckinChart.Tick(position: CheckinChart.text(y), label: Self.bandName(band))
        }
        xTicks = CheckinChart.timeTicks(duration: duration, scale: scale)

        let classified = sound.windows
        windows = classified.map { Self.window($0, offsets: offsets, offsetDB: offsetDB, scale: scale) }
        legend = SoundClass.allCases.compactMap { label in
            let seconds = classified.filter { $0.label == label }.reduce(0) { $0 + $1.seconds }
            guard seconds > 0 else { return nil }
            return LegendEntry(label: label.rawValue, name: Self.name(label), seconds: "\(seconds) s")
        }
        let keptCount = kept.count { $0 }
        summary =
            (hasBands
                ? "\(bands) third-octave bands, \(Self.bandName(spectra.bandIndexes.first!))–"
                    + "\(Self.bandName(spectra.bandIndexes.last!)) Hz, Z-weighted"
                    + (pool > 1 ? ", \(pool) s a column (energetic mean)" : "") + ". "
                : "No bands: LCeq only. ")
            + "\(classified.count) windows of the \(keptCount) kept seconds, each venue-local hour on its own."
    }

    /// The colour steps over the kept seconds' band levels, in 5 dB steps, at least 20 dB.
    struct ColourSteps {
        let low: Double
        let stepDB: Double

        init(spectra: SpectralSamples, kept: [Bool], offsetDB: Double) {
            let keptLevels =
                !spectra.bandIndexes.isEmpty
                ? kept.indices.filter { kept[$0] }.flatMap { sample in
                    spectra.bandIndexes.indices.map { spectra.band($0, sample: sample) + offsetDB }
                } : []
            low = (((keptLevels.min() ?? offsetDB - 60)) / 5).rounded(.down) * 5
            let high = max(((keptLevels.max() ?? offsetDB) / 5).rounded(.up) * 5, low + 20)
            stepDB = (high - low) / Double(Spectrogram.steps)
        }

        func step(_ level: Double) -> Int {
            guard level.isFinite else { return 0 }
            return min(Spectrogram.steps - 1, max(0, Int(((level - low) / stepDB).rounded(.down))))
        }

        var swatches: [Swatch] {
            (0..<Spectrogram.steps).map { Swatch(step: $0, label: AdminFormat.bound(low + Double($0) * stepDB)) }
        }
    }

    /// One band's row: each column's energetic mean, then runs of equal step merged into one rect.
    private static func row(
        _ position: Int, spectra: SpectralSamples, offsets: [Double], offsetDB: Double, pool: Int,
        colours: ColourSteps, rowHeight: Double, scale: CheckinChart.Scale
    ) -> [Rect] {
        let y = Self.top + Self.rowsHeight - Double(position + 1) * rowHeight
        let name = Self.bandName(spectra.bandIndexes[position])
        let columns = pooledColumns(position, spectra: spectra, offsets: offsets, offsetDB: offsetDB, pool: pool)
        var cells: [Rect] = []
        var run = 0
        while run < columns.count {
            let colour = colours.step(columns[run].level)
            var last = run
            while last + 1 < columns.count, colours.step(columns[last + 1].level) == colour,
                columns[last + 1].first - columns[last].last <= Double(pool) + 0.5
            {
                last += 1
            }
            let from = max(scale.x(columns[run].first - 0.5), CheckinChart.left)
            let to = min(scale.x(columns[last].last + 0.5), CheckinChart.right)
            let levels = columns[run...last].map(\.level)
            cells.append(
                Rect(
                    x: CheckinChart.text(from), y: CheckinChart.text(y),
                    width: CheckinChart.text(max(to - from, 0.5)),
                    height: CheckinChart.text(rowHeight), step: colour,
                    title:
                        "\(name) Hz, \(CheckinChart.clock(columns[run].first))–\(CheckinChart.clock(columns[last].last)): "
                        + "\(AdminFormat.decimal(levels.min()!))–\(AdminFormat.decimal(levels.max()!)) dB"))
            run = last + 1
        }
        return cells
    }

    /// One band's level in columns of `pool` seconds: each column's first and last second and its
    /// energetic mean.
    private static func pooledColumns(
        _ position: Int, spectra: SpectralSamples, offsets: [Double], offsetDB: Double, pool: Int
    ) -> [(first: Double, last: Double, level: Double)] {
        var columns: [(first: Double, last: Double, level: Double)] = []
        var index = 0
        while index < offsets.count {
            let column = Int(offsets[index]) / pool
            var end = index
            var levels: [Double] = []
            while end < offsets.count, Int(offsets[end]) / pool == column {
                levels.append(spectra.band(position, sample: end) + offsetDB)
                end += 1
            }
            columns.append((offsets[index], offsets[end - 1], Level.energeticMean(levels) ?? -.infinity))
            index = end
        }
        return columns
    }

    /// A window of kept seconds as drawn: its span, label and the features behind it.
    private static func window(
        _ window: ClassifiedWindow, offsets: [Double], offsetDB: Double, scale: CheckinChart.Scale
    ) -> Window {
        let from = max(scale.x(offsets[window.firstSample] - 0.5), CheckinChart.left)
        let to = min(scale.x(offsets[window.lastSample] + 0.5), CheckinChart.right)
        let f = window.features
        let time =
            "\(CheckinChart.clock(offsets[window.firstSample]))–\(CheckinChart.clock(offsets[window.lastSample]))"
        let name = Self.name(window.label)
        return Window(
            x: CheckinChart.text(from), width: CheckinChart.text(max(to - from, 0.5)),
            textX: CheckinChart.text((from + to) / 2), label: window.label.rawValue, name: name,
            short: Self.shortName(window.label), showsText: to - from >= 26,
            title: "\(time) · \(name) · \(window.reason)", time: time, seconds: window.seconds,
            reason: window.reason, laeq: AdminFormat.decimal(f.laeqDBFS + offsetDB),
            lcMinusLa: AdminFormat.decimal(f.lcMinusLaDB), excess: AdminFormat.decimal(f.lowFrequencyExcessDB),
            flatness: AdminFormat.decimal(f.flatnessDB), shape: AdminFormat.decimal(f.shapeFluxDB))
    }

    /// `100`, `1k`, `10k`.
    static func bandName(_ band: Int) -> String {
        let hertz = SpectralSamples.nominalCentresHz[band]
        guard hertz >= 1000 else { return String(hertz) }
        return hertz % 1000 == 0 ? "\(hertz / 1000)k" : String(format: "%.2gk", Double(hertz) / 1000)
    }

    /// How the admin names a label.
    static func name(_ label: SoundClass) -> String {
        switch label {
        case .babble: "babble"
        case .music: "music"
        case .bassHeavyMusic: "bass-heavy music"
        case .steadyNoise: "steady noise"
        case .quiet: "quiet"
        case .uncertain: "uncertain"
        }
    }

    static func shortName(_ label: SoundClass) -> String {
        switch label {
        case .babble: "talk"
        case .music: "music"
        case .bassHeavyMusic: "bass"
        case .steadyNoise: "steady"
        case .quiet: "quiet"
        case .uncertain: "?"
        }
    }
}
