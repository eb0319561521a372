/// Hampel filter for spikes: window 7 s centred, threshold 3 × 1.4826·MAD, 1 dB floor.
public enum HampelFilter {
    /// Fewest considered values a window needs before it can judge its centre.
    public static let minimumWindowCount = 3

    /// `spikes(offsets:levels:considered:rules:)`: for each considered second, takes the considered
    /// levels within ±3 s (``CleaningRules/hampelHalfWindowSeconds``) including itself, and flags it
    /// when `|x − median| > 3 × max(1.4826·MAD, 1 dB)`.
    ///
    /// Seconds not considered (already invalid or stuck) are neither judged nor used in any
    /// window's median or MAD, so a −160 dBFS gap cannot make its neighbours look like spikes.
    /// Windows with fewer than ``minimumWindowCount`` values flag nothing. Spikes are found from
    /// the same input at once, so one spike does not hide or reveal another.
    public static func spikes(
        offsets: [Double],
        levels: [Double],
        considered: [Bool],
        rules: CleaningRules = CleaningRules()
    ) -> [Bool] {
        var flags = [Bool](repeating: false, count: levels.count)
        // One window and one buffer of deviations for all seconds (no allocation per second).
        var window: [Double] = []
        var deviations: [Double] = []
        for index in levels.indices where considered[index] {
            TimeWindow.collect(
                around: index,
                offsets: offsets,
                values: levels,
                considered: considered,
                halfWidthSeconds: rules.hampelHalfWindowSeconds,
                into: &window
            )
            guard window.count >= minimumWindowCount,
                let centre = RobustStatistics.medianSortingInPlace(&window)
            else { continue }
            deviations.removeAll(keepingCapacity: true)
            for value in window { deviations.append(abs(value - centre)) }
            guard let mad = RobustStatistics.medianSortingInPlace(&deviations) else { continue }
            let scale = max(RobustStatistics.madToSigma * mad, rules.hampelScaleFloorDB)
            flags[index] = abs(levels[index] - centre) > rules.hampelThreshold * scale
        }
        return flags
    }
}
