/// Finds dropouts (phone in a pocket or bag): a 15-second running median ≥ 10 dB under the
/// session median for ≥ 10 consecutive seconds.
public enum DropoutDetector {
    /// `dropouts(offsets:levels:considered:rules:)`: the session median is the median of all
    /// considered levels; each considered second's running median is the median of the considered
    /// levels within ±7 s (``CleaningRules/dropoutHalfWindowSeconds``, a centred 15-second window).
    /// A second is a candidate when its running median is at least 10 dB
    /// (``CleaningRules/dropoutDepthDB``) under the session median; runs of at least 10
    /// (``CleaningRules/dropoutMinimumRun``) consecutive candidates, in sample order skipping
    /// seconds not considered, are flagged. Shorter dips are left for the Hampel filter.
    public static func dropouts(
        offsets: [Double],
        levels: [Double],
        considered: [Bool],
        rules: CleaningRules = CleaningRules()
    ) -> [Bool] {
        var flags = [Bool](repeating: false, count: levels.count)
        let consideredLevels = levels.indices.filter { considered[$0] }.map { levels[$0] }
        guard let sessionMedian = RobustStatistics.median(consideredLevels) else { return flags }
        let limit = sessionMedian - rules.dropoutDepthDB
        var run: [Int] = []
        func closeRun() {
            if run.count >= rules.dropoutMinimumRun {
                for index in run { flags[index] = true }
            }
            run.removeAll()
        }
        // Whether a window's median is at or under the limit needs no median: only how many of
        // its values are at or under it (the same answer as the median's, bit for bit; the
        // tests compare). The window slides: its bounds only move forward as offsets increase.
        let reach = rules.dropoutHalfWindowSeconds + TimeWindow.toleranceSeconds
        var low = 0
        var high = -1
        var count = 0
        var atOrUnder = 0
        for index in levels.indices where considered[index] {
            let centre = offsets[index]
            while high + 1 < offsets.count, offsets[high + 1] - centre < reach {
                high += 1
                if considered[high] {
                    count += 1
                    if levels[high] <= limit { atOrUnder += 1 }
                }
            }
            while centre - offsets[low] >= reach {
                if considered[low] {
                    count -= 1
                    if levels[low] <= limit { atOrUnder -= 1 }
                }
                low += 1
            }
            if medianIsAtOrUnder(limit, count: count, atOrUnder: atOrUnder, window: low...high, levels, considered) {
                run.append(index)
            } else {
                closeRun()
            }
        }
        closeRun()
        return flags
    }

    /// Whether the median of the window's `count` considered levels is at or under `limit`, given
    /// how many of them are (`atOrUnder`). Odd counts: the middle value is, exactly when more than
    /// half are. Even counts: both middle values are when more than half are, neither when fewer
    /// than half; with exactly half, the middle two are the largest at or under the limit and the
    /// smallest over it, and their mean is computed as ``RobustStatistics/median(_:)`` does.
    static func medianIsAtOrUnder(
        _ limit: Double, count: Int, atOrUnder: Int, window: ClosedRange<Int>, _ levels: [Double],
        _ considered: [Bool]
    ) -> Bool {
        guard count > 0 else { return false }
        if count % 2 == 1 { return atOrUnder >= (count + 1) / 2 }
        if atOrUnder > count / 2 { return true }
        if atOrUnder < count / 2 { return false }
        var lower = -Double.infinity
        var upper = Double.infinity
        for position in window where considered[position] {
            let level = levels[position]
            if level <= limit { lower = max(lower, level) } else { upper = min(upper, level) }
        }
        return (lower + upper) / 2 <= limit
    }
}
