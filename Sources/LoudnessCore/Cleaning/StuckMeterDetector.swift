/// Finds a stuck meter: ≥ 5 consecutive considered seconds whose averages span < 0.01 dB.
///
/// "Identical values" and "near-zero variance" are one rule here: identical values span 0 dB,
/// and a real room never holds a per-second average within 0.01 dB for 5 seconds.
public enum StuckMeterDetector {
    /// `stuck(levels:considered:rules:)`: flags every considered second that lies in a run of at
    /// least ``CleaningRules/stuckMinimumRun`` consecutive considered seconds (in sample order,
    /// skipping seconds not considered) whose max − min is below
    /// ``CleaningRules/stuckMaximumRangeDB``. Linear time: a sliding window with monotonic
    /// deques for its minimum and maximum.
    public static func stuck(
        levels: [Double],
        considered: [Bool],
        rules: CleaningRules = CleaningRules()
    ) -> [Bool] {
        let positions = levels.indices.filter { considered[$0] }
        let values = positions.map { levels[$0] }
        var flags = [Bool](repeating: false, count: levels.count)
        var maxima: [Int] = []
        var maxHead = 0
        var minima: [Int] = []
        var minHead = 0
        var left = 0
        var markedThrough = -1
        for right in values.indices {
            while maxima.count > maxHead, let last = maxima.last, values[last] <= values[right] {
                maxima.removeLast()
            }
            maxima.append(right)
            while minima.count > minHead, let last = minima.last, values[last] >= values[right] {
                minima.removeLast()
            }
            minima.append(right)
            while left < right,
                values[maxima[maxHead]] - values[minima[minHead]] >= rules.stuckMaximumRangeDB
            {
                left += 1
                if maxima[maxHead] < left { maxHead += 1 }
                if minima[minHead] < left { minHead += 1 }
            }
            if right - left + 1 >= rules.stuckMinimumRun {
                for position in max(left, markedThrough + 1)...right {
                    flags[positions[position]] = true
                }
                markedThrough = right
            }
        }
        return flags
    }
}
