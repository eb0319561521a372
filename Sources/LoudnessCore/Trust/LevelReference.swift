/// What a venue's check-ins of one period say each cell's level is, to measure later check-ins
/// against (docs/ARCHITECTURE.md, "Venues that change").
///
/// A cell's reference blends its own devices' weighted median `m` (of `n` devices) with the
/// venue's weekday + hour profile `p` (``VenueProfile``) as empirical Bayes does, `(n·m + 2·p) /
/// (n + 2)`: a cell of one or two evenings says little on its own, the profile pools the week but
/// misses a cell's own quirks. A cell with neither has no reference; a period too short for a
/// profile (``VenueProfile/minimumCheckins``) has none at all.
struct LevelReference {
    let cells: [LocalHour: Double]
    let profile: VenueProfile

    static let profileWeight = 2.0

    init?(_ pieces: [VenueChangeDetector.Piece], levels: [Double], weights: [Double]) {
        guard let profile = VenueProfile.fit(pieces.indices.map { (pieces[$0].cell, levels[$0]) }) else {
            return nil
        }
        self.profile = profile
        var byCell: [LocalHour: [CellCheckin]] = [:]
        for index in pieces.indices {
            byCell[pieces[index].cell, default: []].append(
                CellCheckin(
                    checkinID: String(pieces[index].checkin), deviceID: pieces[index].device, levelDB: levels[index],
                    weight: weights[index]))
        }
        var cells: [LocalHour: Double] = [:]
        for (cell, checkins) in byCell {
            let devices = CellEstimator.weightedDeviceValues(checkins)
            guard let median = RobustStatistics.weightedMedian(devices.map { ($0.value, $0.weight) }) else { continue }
            let n = Double(devices.count)
            if let prediction = profile.prediction(for: cell) {
                cells[cell] = (n * median + Self.profileWeight * prediction) / (n + Self.profileWeight)
            } else {
                cells[cell] = median
            }
        }
        self.cells = cells
    }

    /// The reference of `cell`: the blend, or the profile alone for a cell with no check-in of
    /// its own in the period.
    func level(_ cell: LocalHour) -> Double? {
        cells[cell] ?? profile.prediction(for: cell)
    }
}
