import Foundation
import LoudnessCore

/// The evidence of a venue's change as an inline SVG scatter, laid out on the server: each
/// check-in's residual against the venue's level before the change (time on x, dB on y), the ones
/// before as circles and the ones since as squares in another colour, sized by what they weighed;
/// the change's time as a vertical line, zero as a rule. A table carries the same points as text.
struct EvidenceChart {
    struct Point {
        let x: String
        let y: String
        /// Circle radius; a square's half side.
        let r: String
        let squareX: String
        let squareY: String
        let side: String
        let after: Bool
        let title: String
    }

    struct Tick {
        let position: String
        let label: String
    }

    struct Row {
        let time: String
        let residual: String
        let weight: String
        let side: String
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
    let labelX = Self.left - 6
    let axisLabelY = Self.height - 6
    let points: [Point]
    let yTicks: [Tick]
    let xTicks: [Tick]
    let zeroY: String
    /// The change's time, when it falls in the chart.
    let changeX: String?
    let changeLabel: String?
    let rows: [Row]
    let summary: String

    /// `changedAt`: the change shown (nil: the latest check-ins, no change in force).
    init?(evidence: [ChangeResidual], changedAt: Date?) {
        let residuals = evidence.filter { $0.time.isFinite && $0.residualDB.isFinite }
        guard !residuals.isEmpty else { return nil }
        let times = residuals.map(\.time) + (changedAt.map { [$0.timeIntervalSince1970] } ?? [])
        var start = times.min() ?? 0
        var end = times.max() ?? 1
        if end - start < 3600 {
            start -= 1800
            end += 1800
        }
        let values = residuals.map(\.residualDB)
        let low = min((((values.min() ?? -5) - 1) / 5).rounded(.down) * 5, -5)
        let high = max((((values.max() ?? 5) + 1) / 5).rounded(.up) * 5, 5)
        func x(_ time: Double) -> Double { Self.left + (time - start) / (end - start) * (Self.right - Self.left) }
        func y(_ value: Double) -> Double {
            Self.bottom - (value - low) / (high - low) * (Self.bottom - Self.top)
        }
        points = residuals.map { residual in
            let radius = 2.5 + 2.5 * min(max(residual.weight, 0), 1)
            let (px, py) = (x(residual.time), y(residual.residualDB))
            let when = AdminFormat.minute(Date(timeIntervalSince1970: residual.time))
            return Point(
                x: Self.text(px), y: Self.text(py), r: Self.text(radius), squareX: Self.text(px - radius),
                squareY: Self.text(py - radius), side: Self.text(2 * radius), after: residual.after,
                title: "\(when) UTC: \(AdminFormat.signed(residual.residualDB)) dB, weight "
                    + String(format: "%.2f", residual.weight) + (residual.after ? ", since the change" : ", before"))
        }
        let yStep = high - low > 40 ? 10.0 : 5.0
        yTicks = stride(from: low, through: high, by: yStep).map {
            Tick(position: Self.text(y($0)), label: AdminFormat.bound($0))
        }
        zeroY = Self.text(y(0))
        xTicks = (0...4).map { step in
            let time = start + (end - start) * Double(step) / 4
            return Tick(
                position: Self.text(x(time)),
                label: String(AdminFormat.minute(Date(timeIntervalSince1970: time)).prefix(10)))
        }
        changeX = changedAt.map { Self.text(x($0.timeIntervalSince1970)) }
        changeLabel = changedAt.map { "change " + AdminFormat.minute($0) }
        rows = residuals.sorted { $0.time < $1.time }.map { residual in
            Row(
                time: AdminFormat.minute(Date(timeIntervalSince1970: residual.time)),
                residual: AdminFormat.signed(residual.residualDB) + " dB",
                weight: String(format: "%.2f", residual.weight), side: residual.after ? "since" : "before")
        }
        let before = residuals.filter { !$0.after }
        let after = residuals.filter(\.after)
        summary =
            "\(ModelsPage.plural(before.count, "check-in")) before the change"
            + (before.isEmpty
                ? "" : " (median residual \(AdminFormat.signed(Self.median(before.map(\.residualDB)))) dB)")
            + ", \(after.count) since"
            + (after.isEmpty ? "" : " (median \(AdminFormat.signed(Self.median(after.map(\.residualDB)))) dB)")
            + ": each check-in's level less the venue's cell level before the change."
    }

    static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        guard !sorted.isEmpty else { return 0 }
        let middle = sorted.count / 2
        return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
    }

    static func text(_ value: Double) -> String { String(format: "%.1f", value) }
}
