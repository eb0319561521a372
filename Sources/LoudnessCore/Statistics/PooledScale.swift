/// The spread of check-ins *within* a cell, pooled over all the cells of a venue: the scale
/// ``CellEstimator`` judges a cell's check-ins by when it is known.
///
/// A cell of a few check-ins cannot estimate its own spread: the MAD of 3 values is the middle
/// distance to their median, so two honest devices 5 dB apart hide a third 15 dB off. The spread
/// of check-ins about their cell's level (device, position in the room, the evening's crowd)
/// hardly depends on the hour, so it is pooled over the venue, as a pooled variance is in ANOVA.
///
/// Method: the differences `xᵢ − xⱼ` of two check-ins of one cell do not depend on the cell's
/// level; for independent N(μ, σ²) check-ins they are N(0, 2σ²). The scale is the first quartile
/// of `|xᵢ − xⱼ|` over such pairs times `1/(√2·Φ⁻¹(5/8)) = 2.21914`, the pooled form of
/// Rousseeuw & Croux's Qn (JASA 1993): half the pairs may be spoiled before it breaks down. Only
/// pairs of different devices count (one device's check-ins share its bias), and in a long cell
/// only pairs at most ``maximumLag`` apart in input order (time order, for the judge), so the work
/// grows linearly with the check-ins.
public enum PooledScale {
    /// `1/(√2·Φ⁻¹(5/8))`: makes the first quartile of |xᵢ − xⱼ| a consistent σ for normal data.
    /// python3: `1 / (math.sqrt(2) * statistics.NormalDist().inv_cdf(0.625))` = 2.219144…
    public static let qnFactor: Double = 2.219144465985076
    /// Pairs at most this far apart in a cell's order. Default 8: every pair in cells of ≤ 9.
    public static let maximumLag = 8
    /// Fewest pairs for a pooled scale; with fewer there is none. Default 10.
    public static let minimumPairs = 10

    /// `withinCells(_:)`: the pooled within-cell scale of these cells (each an array of its
    /// check-ins in time order), in dB, or `nil` with fewer than ``minimumPairs`` pairs. Not
    /// floored: callers apply their own floor.
    public static func withinCells(_ cells: [[CellCheckin]]) -> Double? {
        var distances: [Double] = []
        for cell in cells {
            for first in cell.indices {
                for second in (first + 1)..<min(cell.count, first + 1 + maximumLag)
                where cell[second].deviceID != cell[first].deviceID {
                    distances.append(abs(cell[first].levelDB - cell[second].levelDB))
                }
            }
        }
        guard distances.count >= minimumPairs,
            let quartile = RobustStatistics.percentile(distances, 25)
        else { return nil }
        return qnFactor * quartile
    }
}
