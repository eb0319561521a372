/// Order statistics used throughout the module: median, median absolute deviation, percentiles.
public enum RobustStatistics {
    /// Scale factor that makes 1.4826·MAD a consistent estimate of the standard deviation for
    /// normally distributed data (1 / Φ⁻¹(3/4)).
    public static let madToSigma: Double = 1.4826

    /// `median(_:)`: the middle value, or the mean of the two middle values for an even count
    /// (as Python's `statistics.median`); `nil` when empty.
    public static func median(_ values: [Double]) -> Double? {
        guard !values.isEmpty else { return nil }
        var values = values
        let middle = values.count / 2
        let upper = select(middle, in: &values)
        if values.count % 2 == 1 { return upper }
        // After selection everything before `middle` is ≤ the middle value: the largest of them
        // is the lower middle.
        return (values[..<middle].max()! + upper) / 2
    }

    /// ``median(_:)`` of `values`, sorting them in place: no allocation, which is what the
    /// cleaning filters need for their small window at every second (insertion sort up to 32
    /// values). The same value as ``median(_:)``, bit for bit: the middle one, or the same sum of
    /// the two middle ones halved.
    static func medianSortingInPlace(_ values: inout [Double]) -> Double? {
        guard !values.isEmpty else { return nil }
        if values.count <= 32 {
            for i in 1..<values.count {
                let value = values[i]
                var j = i
                while j > 0, values[j - 1] > value {
                    values[j] = values[j - 1]
                    j -= 1
                }
                values[j] = value
            }
        } else {
            values.sort()
        }
        let middle = values.count / 2
        return values.count % 2 == 1 ? values[middle] : (values[middle - 1] + values[middle]) / 2
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
        guard !values.isEmpty else { return nil }
        var values = values
        let (lower, weight) = rank(count: values.count, percent: percent)
        let low = select(lower, in: &values)
        guard lower + 1 < values.count else { return low }
        // After selection everything after `lower` is ≥ its value: the smallest is the next rank.
        let high = values[(lower + 1)...].min()!
        return low + weight * (high - low)
    }

    /// `select(_:in:)`: the value of rank `k` (0-based) of `values`, as if sorted ascending, in
    /// O(n) expected time (Hoare's quickselect, median-of-three pivots). Reorders `values` so that
    /// every value before position `k` is ≤ it and every value after is ≥ it.
    static func select(_ k: Int, in values: inout [Double]) -> Double {
        precondition(values.indices.contains(k))
        var low = 0
        var high = values.count - 1
        while high > low {
            let middle = low + (high - low) / 2
            // Median of three to the middle, then Hoare partition around it.
            if values[middle] < values[low] { values.swapAt(middle, low) }
            if values[high] < values[low] { values.swapAt(high, low) }
            if values[high] < values[middle] { values.swapAt(high, middle) }
            let pivot = values[middle]
            var i = low
            var j = high
            while i <= j {
                while values[i] < pivot { i += 1 }
                while values[j] > pivot { j -= 1 }
                if i <= j {
                    values.swapAt(i, j)
                    i += 1
                    j -= 1
                }
            }
            if k <= j {
                high = j
            } else if k >= i {
                low = i
            } else {
                return values[k]
            }
        }
        return values[k]
    }

    /// `percentile(sorted:_:)`: as ``percentile(_:_:)`` for values already sorted ascending.
    public static func percentile(sorted: [Double], _ percent: Double) -> Double? {
        guard !sorted.isEmpty else { return nil }
        let (lower, weight) = rank(count: sorted.count, percent: percent)
        let upper = min(lower + 1, sorted.count - 1)
        return sorted[lower] + weight * (sorted[upper] - sorted[lower])
    }

    /// The lower closest rank of the `percent`-th percentile of `count` values, and the weight of
    /// the next one: `h = (count − 1)·p/100` gives `(⌊h⌋, h − ⌊h⌋)`.
    private static func rank(count: Int, percent: Double) -> (lower: Int, weight: Double) {
        let position = Double(count - 1) * (min(max(percent, 0), 100) / 100)
        let lower = Int(position.rounded(.down))
        return (lower, position - Double(lower))
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

    /// `weightedMedianAbsoluteDeviation(_:)`: the weighted median of `|xᵢ − m|` about the weighted
    /// median `m`, with the same weights (equal weights give ``medianAbsoluteDeviation(_:)``);
    /// `nil` when no weight is positive.
    public static func weightedMedianAbsoluteDeviation(_ weighted: [(value: Double, weight: Double)]) -> Double? {
        guard let centre = weightedMedian(weighted) else { return nil }
        return weightedMedian(weighted.map { (abs($0.value - centre), $0.weight) })
    }

    /// `effectiveCount(_:)`: Kish's effective number of equally weighted values, `(Σw)² / Σw²`
    /// (n for equal weights); 0 without positive weights.
    public static func effectiveCount(_ weights: [Double]) -> Double {
        let positive = weights.filter { $0 > 0 }
        let squares = positive.reduce(0) { $0 + $1 * $1 }
        guard squares > 0 else { return 0 }
        let total = positive.reduce(0, +)
        return total * total / squares
    }
}
