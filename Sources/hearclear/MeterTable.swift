import Foundation
import HearClearEngine
import LoudnessCore

/// The per-second levels of `hearclear meter` as a text table.
struct MeterTable {
    let report: MeterReport
    let fileName: String
    let startGiven: Bool

    func render() -> String {
        let format = report.format
        var text = "\(fileName): \(format.name), \(format.encoding), \(format.sampleRate) Hz, "
        text += "\(format.channels) channel\(format.channels == 1 ? "" : "s"), \(format.durationSeconds) s\n"
        if let first = report.samples.first?.t {
            text += "start: \(first)\(startGiven ? "" : " (now minus the recording's length; set it with --start)")\n"
        }
        text += "\n" + row("offset s", "RMS dBFS", "peak dBFS", "A-wtd dBFS", "C-wtd dBFS") + "\n"
        for sample in report.samples {
            text +=
                row(
                    "\(sample.offset)", level(sample.average), level(sample.peak), level(sample.aWeighted),
                    level(sample.lceq)) + "\n"
        }
        text += "\n\(report.samples.count) sample\(report.samples.count == 1 ? "" : "s"), one per second"
        if !report.samples.isEmpty {
            // Energetic mean of the RMS levels, as the server's per-hour Leq.
            let leq = Level.energeticMean(report.samples.map(\.average)) ?? -.infinity
            let peak = report.samples.map(\.peak).max() ?? 0
            text += "; energetic mean \(level(leq)) dBFS, highest peak \(level(peak)) dBFS"
        }
        text += ".\ntrailing partial second: \(report.trailingPartialSecond.note).\n"
        text += characterSummary()
        return text
    }

    /// Each window's label and the rule behind it, then the shares and the median LC − LA (the
    /// features themselves are in --json).
    private func characterSummary() -> String {
        let character = report.character
        guard !character.windows.isEmpty else { return "" }
        var text =
            "\nwhat kind of loud (by \(character.classifier), windows of about \(character.windowSeconds) s; "
            + "their features and classes in --json):\n"
        for window in character.windows {
            let span = "\(window.offset)-\(window.offset + window.seconds) s"
            let label = Self.words(window.label)
            text += "  " + span.padding(toLength: max(span.count, 11), withPad: " ", startingAt: 0) + " "
            text +=
                label.padding(toLength: max(label.count, 17), withPad: " ", startingAt: 0) + " " + window.reason + "\n"
        }
        let shares = character.shares.filter { $0.value > 0 }.sorted { ($0.value, $1.key) > ($1.value, $0.key) }
        text += shares.map { "\(Self.words($0.key)) \(Int(($0.value * 100).rounded())) %" }.joined(separator: ", ")
        if let median = character.medianLcMinusLa { text += "; median LC − LA \(String(format: "%.1f", median)) dB" }
        return text + ".\n"
    }

    /// A label in words: `bass_heavy_music` → "bass-heavy music".
    static func words(_ label: String) -> String {
        label == "bass_heavy_music" ? "bass-heavy music" : label.replacingOccurrences(of: "_", with: " ")
    }

    private func row(_ columns: String...) -> String {
        columns.map { String(repeating: " ", count: max(0, 11 - $0.count)) + $0 }.joined(separator: " ")
    }

    private func level(_ value: Double) -> String { String(format: "%.2f", value) }
}
