/// Order statistics used throughout the module: median, median absolute deviation, percentiles.
public enum RobustStatistics {
    /// Scale factor that makes 1.4826·MAD a consistent estimate of the standard deviation for
    /// normally distributed data (1 / Φ⁻¹(3/4)).
    public static let madToSigma: Double = 1.4826

    /// `median(_:)`: the middle value, or the mean of the two middle values for an even count
    /// (as Python's `statistics.median`); `nil` when empty.
    public static func median(_ values: [Double]) -> Double? {
        guard !values.isEmpty else { return nil }
        let sorted = values.sorted()
        let middle = sorted.count / 2
        if sorted.count % 2 == 1 { return sorted[middle] }
        return (sorted[middle - 1] + sorted[middle]) / 2
    }

    /// `medianAbsoluteDeviation(_:)`: MAD = median(|x − median(x)|), unscaled; `nil` when empty.
    public static func medianAbsoluteDeviation(_ values: [Double]) -> Double? {
        guard let centre = median(values) else { return nil }
        return median(values.map { abs($0 - centre) })
    }

    /// `percentile(_:_:)`: the `percent`-th percentile (0…100) by linear interpolation between
    /// closest ranks: position `h = (n − 1)·p/100`, value `x[⌊h⌋] + (h − ⌊h⌋)·(x[⌊h⌋+1] − x[⌊h⌋])`.
    /// This is numpy's default (`method='linear'`) and equals Python's
    /// `statistics.quantiles(data, n=100, method='inclusive')`. `nil` when empty.
    public static func percentile(_ values: [Double], _ percent: Double) -> Double? {
        percentile(sorted: values.sorted(), percent)
    }

    /// `percentile(sorted:_:)`: as ``percentile(_:_:)`` for values already sorted ascending.
    public static func percentile(sorted: [Double], _ percent: Double) -> Double? {
        guard !sorted.isEmpty else { return nil }
        let fraction = min(max(percent, 0), 100) / 100
        let position = Double(sorted.count - 1) * fraction
        let lower = Int(position.rounded(.down))
        let upper = min(lower + 1, sorted.count - 1)
        let weight = position - Double(lower)
        return sorted[lower] + weight * (sorted[upper] - sorted[lower])
    }

    /// `weightedMedian(_:)`: the value at which the cumulative weight (values ascending) first
    /// reaches half the total; when it lands exactly on half, the mean of that value and the next
    /// (so equal weights give ``median(_:)``). Non-positive weights are ignored; `nil` when no
    /// weight is left.
    public static func weightedMedian(_ weighted: [(value: Double, weight: Double)]) -> Double? {
        let sorted = weighted.filter { $0.weight > 0 }.sorted { $0.value < $1.value }
        let total = sorted.reduce(0) { $0 + $1.weight }
        guard total > 0 else { return nil }
        let half = total / 2
        var cumulative = 0.0
        for (index, item) in sorted.enumerated() {
            cumulative += item.weight
            if abs(cumulative - half) <= 1e-12 * total, index + 1 < sorted.count {
                return (item.value + sorted[index + 1].value) / 2
            }
            if cumulative > half { return item.value }
        }
        return sorted.last?.value
    }
}
