/// Fills the empty cells a venue's own pattern cannot from venues of the same category nearby
/// (docs/ARCHITECTURE.md, "Estimates for empty cells"), for the cells ``PatternEstimator`` left
/// empty.
///
/// Method: each neighbour `n` that has measured at least ``minimumSharedCells`` of the cells the
/// venue has measured gets the venue's offset from it, `d_n`, the median over those shared cells
/// of `venue − n`. An empty cell gets the median of `n(cell) + d_n` over the neighbours that
/// measured it, when at least ``minimumNeighbours`` did. A pub whose neighbours are 3 dB louder
/// than it where both have data is predicted 3 dB below them where only they have; cafés with no
/// 2 am data give a café no 2 am estimate.
///
/// Error of the prediction: the predictions at a cell scatter by `s` (1.4826 · MAD), so their
/// median is off by about `v = (π/2) · s²/k` for `k` of them. The venue's own departure from what
/// its neighbours predict, `τ²`, is measured on its own cells: over the `m` measured cells that at
/// least ``minimumNeighbours`` neighbours also measured (at least ``minimumResidualCells`` of
/// them, or no estimate: nothing would say how far to trust the neighbours), a residual
/// `r = venue(cell) − prediction(cell)` strays by `τ²` plus the measured cell's own error `e²`
/// (its range's half-width / 1.96) plus that cell's `v`. So `τ² = max(Σr²/(m − 1) − mean(e²) −
/// mean(v), 1)` (`m − 1`: the offsets were fitted on the same cells), and the standard error is
/// `√(τ² + v)` at the cell estimated, with the floors of ``PatternEstimator``: at least 1.5 dB,
/// and a half-width at least the venue's median measured half-width + 1 dB. (Without taking the
/// measured cells' own error out, the simulated city's estimates were 13.7 dB wide with an MAE of
/// 1.3 dB: honest but useless.)
public struct NeighbourEstimator: Sendable {
    /// Cells a neighbour must share with the venue for its offset. Default 3.
    public static let minimumSharedCells = 3
    /// Predictions a cell needs. Default 3.
    public static let minimumNeighbours = 3
    /// Measured cells that must be predicted to say how good the predictions are. Default 3.
    public static let minimumResidualCells = 3

    public init() {}

    /// Estimates for the cells of the week neither in `measured` nor in `covered`, from the
    /// measured levels (dB, indexed by ``LocalHour/cellIndex``, `nil` for none) of the venue's
    /// neighbours: the worker hands it the venues of the venue's category within 3 km, the 12
    /// nearest (`category_neighbours` and `neighbour_count()` in the database).
    public func estimates(
        measured: [LocalHour: CellEstimate], covered: Set<LocalHour>, neighbours: [[Double?]]
    ) -> [LocalHour: PatternEstimate] {
        guard neighbours.count >= Self.minimumNeighbours, measured.count >= Self.minimumSharedCells else { return [:] }
        var own = [Double?](repeating: nil, count: LocalHour.cellCount)
        for (cell, estimate) in measured { own[cell.cellIndex] = estimate.levelDB }
        // Each usable neighbour's levels shifted by the venue's offset from it.
        let shifted: [[Double?]] = neighbours.compactMap { levels in
            guard levels.count == LocalHour.cellCount else { return nil }
            let differences = (0..<LocalHour.cellCount).compactMap { index -> Double? in
                guard let mine = own[index], let theirs = levels[index] else { return nil }
                return mine - theirs
            }
            guard differences.count >= Self.minimumSharedCells,
                let offset = RobustStatistics.median(differences)
            else { return nil }
            return levels.map { $0.map { $0 + offset } }
        }
        func predictions(_ index: Int) -> [Double] { shifted.compactMap { $0[index] } }

        /// The predictions' median and the variance of that median, `(π/2) · s²/k`.
        func predict(_ predicted: [Double]) -> (level: Double, variance: Double)? {
            guard predicted.count >= Self.minimumNeighbours, let level = RobustStatistics.median(predicted),
                let mad = RobustStatistics.medianAbsoluteDeviation(predicted)
            else { return nil }
            let spread = RobustStatistics.madToSigma * mad
            return (level, Double.pi / 2 * spread * spread / Double(predicted.count))
        }

        var squares: [Double] = []
        var ownErrors: [Double] = []
        var predictionErrors: [Double] = []
        for (cell, estimate) in measured {
            guard let prediction = predict(predictions(cell.cellIndex)) else { continue }
            let residual = estimate.levelDB - prediction.level
            squares.append(residual * residual)
            let error = (estimate.rangeDB.upperBound - estimate.rangeDB.lowerBound) / 2 / 1.96
            ownErrors.append(error * error)
            predictionErrors.append(prediction.variance)
        }
        guard squares.count >= Self.minimumResidualCells else { return [:] }
        let m = Double(squares.count)
        let tauSquared = max(
            squares.reduce(0, +) / (m - 1) - ownErrors.reduce(0, +) / m - predictionErrors.reduce(0, +) / m, 1)
        let minimumScale = PatternEstimator.minimumScaleDB(measured: measured)

        var estimates: [LocalHour: PatternEstimate] = [:]
        for index in 0..<LocalHour.cellCount where own[index] == nil {
            let cell = LocalHour(cellIndex: index)
            guard !covered.contains(cell), let prediction = predict(predictions(index)) else { continue }
            let scale = (tauSquared + prediction.variance).squareRoot()
            estimates[cell] = PatternEstimate(
                levelDB: prediction.level, scaleDB: max(scale, minimumScale), basis: .categoryNearby)
        }
        return estimates
    }
}

extension LocalHour {
    /// Cells in a week: 7 × 24.
    public static let cellCount = 168

    /// The cell's place in a week-long array: `(weekday − 1) · 24 + hour`, 0…167 (the
    /// `venue_levels` arrays are this plus one, as PostgreSQL counts from 1).
    public var cellIndex: Int { (weekday - 1) * 24 + hour }

    /// `init(cellIndex:)`: the cell at `index` (0…167) of a week-long array.
    public init(cellIndex index: Int) {
        self.init(weekday: index / 24 + 1, hour: index % 24)
    }
}
