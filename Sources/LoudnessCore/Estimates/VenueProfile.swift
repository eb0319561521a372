/// What a venue's other hours say a cell should be: an additive weekday + hour profile fitted
/// robustly to all its check-ins, and how far a check-in usually lies from it.
///
/// Method: Tukey's median polish (Exploratory Data Analysis, 1977) on individual check-ins,
/// `level ≈ overall + day[weekday] + hour[hour]`. Start with `overall` = the median of all levels
/// and no effects; then, ``iterations`` times (or until no effect moves by 0.001 dB), set each
/// weekday's effect to the median over its check-ins of `level − overall − hour[h]`, then each
/// hour's effect likewise. Medians, so a fifth of junk barely moves the profile.
///
/// ``residualScaleDB`` = 1.4826 · median |level − fit| over all check-ins: the robust SD of a
/// check-in about the profile, which holds both the check-in's own spread within its cell and how
/// far the cell's true level strays from an additive profile.
///
/// A cell is predicted only when its weekday and its hour each hold at least
/// ``minimumOthers`` check-ins *outside* that cell, so that the prediction comes from the venue's
/// other hours and not from the cell itself; and only when the venue has at least
/// ``minimumCheckins`` check-ins in all.
public struct VenueProfile: Sendable, Equatable {
    /// Fewest check-ins for a profile. Default 20.
    public static let minimumCheckins = 20
    /// Fewest check-ins of the cell's weekday, and of its hour, from other cells. Default 3.
    public static let minimumOthers = 3
    /// Most rounds of median polish. Default 10.
    public static let iterations = 10

    /// The median level the effects are added to, dB.
    public let overallDB: Double
    /// Effect of each ISO weekday (index 0 = Monday), dB; 0 for a weekday without check-ins.
    public let weekdayEffectsDB: [Double]
    /// Effect of each hour 0…23, dB; 0 for an hour without check-ins.
    public let hourEffectsDB: [Double]
    /// Robust SD of check-ins about the profile, dB (unfloored).
    public let residualScaleDB: Double
    private let counts: [LocalHour: Int]
    private let weekdayCounts: [Int]
    private let hourCounts: [Int]

    /// `fit(_:)`: the profile of these check-in levels with their cells, or `nil` with fewer than
    /// ``minimumCheckins``.
    public static func fit(_ levels: [(hour: LocalHour, levelDB: Double)]) -> VenueProfile? {
        guard levels.count >= minimumCheckins, let overall = RobustStatistics.median(levels.map(\.levelDB))
        else { return nil }
        var days = [Double](repeating: 0, count: 7)
        var hours = [Double](repeating: 0, count: 24)
        for _ in 0..<iterations {
            var moved = 0.0
            let newDays = effects(levels, count: 7, index: \.weekdayIndex) {
                $0.levelDB - overall - hours[$0.hour.hour]
            }
            moved = max(moved, zip(days, newDays).map { abs($0 - $1) }.max() ?? 0)
            days = newDays
            let newHours = effects(levels, count: 24, index: \.hour) {
                $0.levelDB - overall - days[$0.hour.weekday - 1]
            }
            moved = max(moved, zip(hours, newHours).map { abs($0 - $1) }.max() ?? 0)
            hours = newHours
            if moved < 0.001 { break }
        }
        let residuals = levels.map { abs($0.levelDB - overall - days[$0.hour.weekday - 1] - hours[$0.hour.hour]) }
        var counts: [LocalHour: Int] = [:]
        var weekdayCounts = [Int](repeating: 0, count: 7)
        var hourCounts = [Int](repeating: 0, count: 24)
        for level in levels {
            counts[level.hour, default: 0] += 1
            weekdayCounts[level.hour.weekday - 1] += 1
            hourCounts[level.hour.hour] += 1
        }
        return VenueProfile(
            overallDB: overall, weekdayEffectsDB: days, hourEffectsDB: hours,
            residualScaleDB: RobustStatistics.madToSigma * (RobustStatistics.median(residuals) ?? 0),
            counts: counts, weekdayCounts: weekdayCounts, hourCounts: hourCounts)
    }

    /// `prediction(for:)`: `overall + day + hour` for the cell, or `nil` when its weekday or hour
    /// has fewer than ``minimumOthers`` check-ins outside it.
    public func prediction(for cell: LocalHour) -> Double? {
        let own = counts[cell] ?? 0
        guard weekdayCounts[cell.weekday - 1] - own >= Self.minimumOthers,
            hourCounts[cell.hour] - own >= Self.minimumOthers
        else { return nil }
        return overallDB + weekdayEffectsDB[cell.weekday - 1] + hourEffectsDB[cell.hour]
    }

    /// `fitted(for:)`: `overall + day + hour` for the cell, whatever its counts (the fit at a
    /// check-in the profile was fitted to).
    public func fitted(for cell: LocalHour) -> Double {
        overallDB + weekdayEffectsDB[cell.weekday - 1] + hourEffectsDB[cell.hour]
    }

    /// `checkinCount(weekday:)`: check-ins of this ISO weekday in the fit.
    public func checkinCount(weekday: Int) -> Int { weekdayCounts[weekday - 1] }

    /// `checkinCount(hour:)`: check-ins of this hour (any weekday) in the fit.
    public func checkinCount(hour: Int) -> Int { hourCounts[hour] }

    private static func effects(
        _ levels: [(hour: LocalHour, levelDB: Double)], count: Int, index: (LocalHour) -> Int,
        remainder: ((hour: LocalHour, levelDB: Double)) -> Double
    ) -> [Double] {
        var groups = [[Double]](repeating: [], count: count)
        for level in levels { groups[index(level.hour)].append(remainder(level)) }
        return groups.map { RobustStatistics.median($0) ?? 0 }
    }
}

extension LocalHour {
    /// 0 for Monday … 6 for Sunday, the index into ``VenueProfile/weekdayEffectsDB``.
    fileprivate var weekdayIndex: Int { weekday - 1 }
}
