import Foundation
import LoudnessCore

/// The per-second chart of one check-in, laid out on the server as numbers for the SVG in
/// `checkin.mustache`: average and peak as polylines (broken at gaps), each removed second as a
/// shaded column coloured by its reason, and the axes' ticks. Levels are calibrated dB.
struct CheckinChart {
    struct Column {
        let x: String
        let width: String
        let reason: String
        let title: String
    }

    struct Tick {
        let position: String
        let label: String
    }

    struct LegendEntry {
        let reason: String
        let label: String
        let seconds: String
    }

    static let width = 720.0
    static let height = 260.0
    static let left = 46.0
    static let right = 710.0
    static let top = 10.0
    static let bottom = 226.0

    let width = Self.width
    let height = Self.height
    let plotLeft = Self.left
    let plotRight = Self.right
    let plotTop = Self.top
    let plotBottom = Self.bottom
    let plotHeight = Self.bottom - Self.top
    let labelX = Self.left - 6
    let axisLabelY = Self.height - 6
    let averageLines: [String]
    let peakLines: [String]
    let removed: [Column]
    let yTicks: [Tick]
    let xTicks: [Tick]
    let legend: [LegendEntry]
    let summary: String

    /// - Parameter offsetDB: added to every dBFS value (model offset + reference offset).
    init(samples: SessionSamples, rejections: [SecondRejection?], offsetDB: Double) {
        let offsets = samples.offsetsSeconds
        let averages = samples.averageDBFS.map { $0 + offsetDB }
        let peaks = samples.peakDBFS.map { $0 + offsetDB }
        let plausible = (averages + peaks).filter { $0.isFinite && $0 > CleaningRules().minimumLevelDBFS + offsetDB }
        // 5 dB steps with at least 1 dB of margin, and at least 10 dB shown.
        let low = (((plausible.min() ?? offsetDB - 60) - 1) / 5).rounded(.down) * 5
        let high = max((((plausible.max() ?? offsetDB) + 1) / 5).rounded(.up) * 5, low + 10)
        let duration = max(offsets.last ?? 1, 1)
        let scale = Scale(low: low, high: high, duration: duration)

        averageLines = Self.lines(offsets: offsets, values: averages, scale: scale)
        peakLines = Self.lines(offsets: offsets, values: peaks, scale: scale)
        removed = Self.columns(offsets: offsets, rejections: rejections, scale: scale)
        let yStep = high - low > 40 ? 10.0 : high - low > 20 ? 5.0 : 2.5
        yTicks = stride(from: low, through: high, by: yStep).map {
            Tick(position: Self.text(scale.y($0)), label: AdminFormat.bound($0))
        }
        xTicks = Self.timeTicks(duration: duration, scale: scale)
        legend = SecondRejection.allCases.compactMap { reason in
            let count = rejections.count { $0 == reason }
            guard count > 0 else { return nil }
            return LegendEntry(reason: reason.rawValue, label: Self.label(reason), seconds: "\(count) s")
        }
        let kept = rejections.count { $0 == nil }
        summary = "\(kept) of \(rejections.count) seconds kept; \(rejections.count - kept) removed."
    }

    struct Scale {
        let low: Double
        let high: Double
        let duration: Double

        func x(_ seconds: Double) -> Double {
            CheckinChart.left + (CheckinChart.right - CheckinChart.left) * seconds / duration
        }

        /// Out-of-range values (the −160 dBFS silence floor) sit on the plot's edge.
        func y(_ level: Double) -> Double {
            let clamped = level.isFinite ? min(max(level, low), high) : low
            return CheckinChart.bottom - (CheckinChart.bottom - CheckinChart.top) * (clamped - low) / (high - low)
        }
    }

    /// At most 9 ticks on the time axis, at round steps from 5 s to an hour (the spectrogram's too).
    static func timeTicks(duration: Double, scale: Scale) -> [Tick] {
        let step = [5.0, 10, 15, 30, 60, 120, 300, 600, 900, 1800].first { duration / $0 <= 8 } ?? 3600
        return stride(from: 0, through: duration, by: step).map {
            Tick(position: text(scale.x($0)), label: clock($0))
        }
    }

    /// `x,y x,y …` runs, a new one after any gap of more than a second.
    static func lines(offsets: [Double], values: [Double], scale: Scale) -> [String] {
        var lines: [String] = []
        var current: [String] = []
        for index in offsets.indices {
            if index > 0, offsets[index] - offsets[index - 1] > 1.5, !current.isEmpty {
                lines.append(current.joined(separator: " "))
                current = []
            }
            current.append(text(scale.x(offsets[index])) + "," + text(scale.y(values[index])))
        }
        if !current.isEmpty { lines.append(current.joined(separator: " ")) }
        return lines
    }

    /// One column per run of consecutive seconds removed for the same reason.
    static func columns(offsets: [Double], rejections: [SecondRejection?], scale: Scale) -> [Column] {
        var columns: [Column] = []
        var index = 0
        while index < rejections.count {
            guard let reason = rejections[index] else {
                index += 1
                continue
            }
            var end = index
            while end + 1 < rejections.count, rejections[end + 1] == reason, offsets[end + 1] - offsets[end] <= 1.5 {
                end += 1
            }
            let from = max(scale.x(offsets[index] - 0.5), left)
            let to = min(scale.x(offsets[end] + 0.5), right)
            let seconds = end - index + 1
            columns.append(
                Column(
                    x: text(from), width: text(max(to - from, 0.5)), reason: reason.rawValue,
                    title: "\(label(reason)): \(clock(offsets[index]))" + (seconds > 1 ? "–\(clock(offsets[end]))" : "")
                )
            )
            index = end + 1
        }
        return columns
    }

    static func label(_ reason: SecondRejection) -> String {
        switch reason {
        case .invalid: "invalid level"
        case .stuck: "stuck meter"
        case .spike: "spike"
        case .afterSpike: "after a spike"
        case .dropout: "dropout (pocket)"
        }
    }

    /// `m:ss` from the check-in's start.
    static func clock(_ seconds: Double) -> String {
        let whole = Int(seconds.rounded())
        return "\(whole / 60):" + String(format: "%02d", whole % 60)
    }

    static func text(_ value: Double) -> String {
        String(format: "%.1f", value)
    }
}
