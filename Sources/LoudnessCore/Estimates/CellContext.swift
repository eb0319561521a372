/// What the rest of a venue knows about one of its cells, for ``CellEstimator``: the venue's
/// within-cell spread and what its other hours predict for the cell.
public struct CellContext: Sendable, Equatable {
    /// Most check-ins a profile prediction may be worth. Default 2: the profile assumes the cell
    /// strays from it by a normal amount, which a special night need not, so three devices that
    /// agree always outvote it.
    public static let maximumPriorWeight: Double = 2

    /// The venue's pooled within-cell scale (``PooledScale``), dB.
    public let pooledScaleDB: Double
    /// The venue profile's prediction for the cell (``VenueProfile``), dB; `nil` when there is none.
    public let priorDB: Double?
    /// How many check-ins the prediction counts as in the centre of the outlier test.
    public let priorWeight: Double

    /// `init(pooledScaleDB:priorDB:priorWeight:)`: memberwise.
    public init(pooledScaleDB: Double, priorDB: Double? = nil, priorWeight: Double = 0) {
        self.pooledScaleDB = pooledScaleDB
        self.priorDB = priorDB
        self.priorWeight = priorDB == nil ? 0 : priorWeight
    }

    /// `init(pooledScaleDB:profile:cell:floorDB:)`: the context of `cell` in a venue with this
    /// pooled scale σ and profile. The prediction's weight is the normal–normal empirical Bayes
    /// one, `σ² / τ²`, where `τ² = max(s² − σ², floor²)` is the variance of a cell's true level
    /// about the profile (`s` = the profile's ``VenueProfile/residualScaleDB``, which holds both),
    /// capped at ``maximumPriorWeight``. σ is floored at `floorDB` (1 dB) too.
    public init(pooledScaleDB: Double, profile: VenueProfile?, cell: LocalHour, floorDB: Double = 1) {
        guard let profile, let prediction = profile.prediction(for: cell) else {
            self.init(pooledScaleDB: pooledScaleDB)
            return
        }
        self.init(
            pooledScaleDB: pooledScaleDB, priorDB: prediction,
            priorWeight: Self.priorWeight(
                pooledScaleDB: pooledScaleDB, residualScaleDB: profile.residualScaleDB, floorDB: floorDB))
    }

    /// `priorWeight(pooledScaleDB:residualScaleDB:floorDB:)`: `min(σ²/τ², 2)` with
    /// `σ = max(pooled, floor)`, `s = max(residual, floor)` and `τ² = max(s² − σ², floor²)`.
    public static func priorWeight(pooledScaleDB: Double, residualScaleDB: Double, floorDB: Double = 1) -> Double {
        let sigma = max(pooledScaleDB, floorDB)
        let residual = max(residualScaleDB, floorDB)
        let tauSquared = max(residual * residual - sigma * sigma, floorDB * floorDB)
        return min(sigma * sigma / tauSquared, maximumPriorWeight)
    }

    /// `forVenue(_:floorDB:)`: the context of every cell of a venue, from the check-ins of all its
    /// cells (each in time order): one ``PooledScale`` and one ``VenueProfile`` fitted to every
    /// check-in. Empty when the venue has too few pairs for a pooled scale; then each cell is
    /// judged alone.
    public static func forVenue(_ cells: [LocalHour: [CellCheckin]], floorDB: Double = 1) -> [LocalHour: CellContext] {
        let hours = cells.keys.sorted()
        guard let pooled = PooledScale.withinCells(hours.map { cells[$0] ?? [] }) else { return [:] }
        let profile = VenueProfile.fit(hours.flatMap { hour in (cells[hour] ?? []).map { (hour, $0.levelDB) } })
        return Dictionary(
            uniqueKeysWithValues: hours.map {
                ($0, CellContext(pooledScaleDB: pooled, profile: profile, cell: $0, floorDB: floorDB))
            })
    }
}
