/// Huber M-estimate of location with a fixed, robust scale, solved by iteratively reweighted
/// least squares (IRLS).
public enum HuberEstimator {
    /// Huber's tuning constant: 95 % efficiency at the normal distribution.
    public static let defaultK: Double = 1.345

    /// `pooledScale(_:floorDB:)`: the scale used for every value of a cell,
    /// `max(1.4826·MAD, floorDB)`; the floor (default 1 dB) keeps identical values from giving a
    /// zero scale. `nil` when empty.
    public static func pooledScale(_ values: [Double], floorDB: Double = 1) -> Double? {
        guard let mad = RobustStatistics.medianAbsoluteDeviation(values) else { return nil }
        return max(RobustStatistics.madToSigma * mad, floorDB)
    }

    /// `location(_:scale:k:tolerance:maximumIterations:)`: starting from the median, repeats
    /// `μ ← Σ wᵢxᵢ / Σ wᵢ` with `wᵢ = min(1, k·scale / |xᵢ − μ|)` until μ moves less than
    /// `tolerance` (1e-9 dB) or after `maximumIterations` (100). Values within k·scale of μ count
    /// fully (so a clean set gives its mean); farther ones are pulled in to k·scale. `nil` when
    /// empty.
    public static func location(
        _ values: [Double],
        scale: Double,
        k: Double = defaultK,
        tolerance: Double = 1e-9,
        maximumIterations: Int = 100
    ) -> Double? {
        location(
            values, weights: nil, scale: scale, k: k, tolerance: tolerance, maximumIterations: maximumIterations)
    }

    /// `location(_:weights:scale:k:tolerance:maximumIterations:)`: the same with a prior weight
    /// `vᵢ` per value (a device's trust and recency): from the weighted median, `μ ← Σ vᵢwᵢxᵢ /
    /// Σ vᵢwᵢ`. Equal weights give ``location(_:scale:k:tolerance:maximumIterations:)`` exactly;
    /// the weights only say how much each value counts, the bound on any one value's pull stays.
    /// `nil` when empty or no weight is positive.
    public static func location(
        _ values: [Double],
        weights: [Double]?,
        scale: Double,
        k: Double = defaultK,
        tolerance: Double = 1e-9,
        maximumIterations: Int = 100
    ) -> Double? {
        let start: Double?
        if let weights {
            start = RobustStatistics.weightedMedian(zip(values, weights).map { ($0, $1) })
        } else {
            start = RobustStatistics.median(values)
        }
        guard var estimate = start else { return nil }
        let clip = k * scale
        for _ in 0..<maximumIterations {
            var weightedSum = 0.0
            var weightTotal = 0.0
            for (index, value) in values.enumerated() {
                let distance = abs(value - estimate)
                let weight = (distance <= clip ? 1 : clip / distance) * (weights?[index] ?? 1)
                weightedSum += weight * value
                weightTotal += weight
            }
            guard weightTotal > 0 else { break }
            let next = weightedSum / weightTotal
            let moved = abs(next - estimate)
            estimate = next
            if moved < tolerance { break }
        }
        return estimate
    }
}
