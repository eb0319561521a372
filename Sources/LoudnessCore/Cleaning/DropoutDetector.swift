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
        // One window for all seconds (no allocation per second).
        var window: [Double] = []
        for index in levels.indices where considered[index] {
            TimeWindow.collect(
                around: index,
                offsets: offsets,
                values: levels,
                considered: considered,
                halfWidthSeconds: rules.dropoutHalfWindowSeconds,
                into: &window
            )
            if let runningMedian = RobustStatistics.medianSortingInPlace(&window), runningMedian <= limit {
                run.append(index)
            } else {
                closeRun()
            }
        }
        closeRun()
        return flags
    }
}
