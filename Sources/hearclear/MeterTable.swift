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
        text += "\n" + row("offset s", "RMS dBFS", "peak dBFS", "A-wtd dBFS") + "\n"
        for sample in report.samples {
            text += row("\(sample.offset)", level(sample.average), level(sample.peak), level(sample.aWeighted)) + "\n"
        }
        text += "\n\(report.samples.count) sample\(report.samples.count == 1 ? "" : "s"), one per second"
        if !report.samples.isEmpty {
            // Energetic mean of the RMS levels, as the server's per-hour Leq.
            let leq = Level.energeticMean(report.samples.map(\.average)) ?? -.infinity
            let peak = report.samples.map(\.peak).max() ?? 0
            text += "; energetic mean \(level(leq)) dBFS, highest peak \(level(peak)) dBFS"
        }
        text += ".\ntrailing partial second: \(report.trailingPartialSecond.note).\n"
        return text
    }

    private func row(_ columns: String...) -> String {
        columns.map { String(repeating: " ", count: max(0, 11 - $0.count)) + $0 }.joined(separator: " ")
    }

    private func level(_ value: Double) -> String { String(format: "%.2f", value) }
}
