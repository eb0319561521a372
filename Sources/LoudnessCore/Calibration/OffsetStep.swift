/// A step in a phone's (or a phone model's) readings against the crowd (docs/ARCHITECTURE.md,
/// "Phones that drift"): a case over the microphone, an OS update the phone did not report.
///
/// Its readings' deviations from the crowd (the cells' levels, the model's offset taken off), in
/// time order and clipped at 3 `scale`s, are split where the means before and after differ most in
/// standard errors, `t = Δ / (scale · √(1/n_before + 1/n_after))`, among its latest ``window``
/// readings. A step is there when `|t|` reaches ``threshold`` and `|Δ|` ``minimumShiftDB``, with at
/// least ``minimumBefore`` readings before it and ``minimumAfter`` after. *When* it was flagged is
/// found by replaying the test as the readings arrived: the first reading after which it passes.
public struct OffsetStep: Sendable, Equatable {
    /// When the first reading after the step was made, seconds since 1970.
    public var at: Double
    /// Mean after less mean before, dB.
    public var shiftDB: Double
    /// When the reading was made after which the test first passed, seconds since 1970.
    public var detectedAt: Double
    /// Readings after the step up to and including that one.
    public var detectedAfter: Int

    /// The test's settings.
    public struct Test: Sendable, Equatable {
        public var threshold = 4.5
        public var minimumShiftDB = 3.0
        public var minimumBefore = 5
        public var minimumAfter = 2
        /// Latest readings the split is looked for among.
        public var window = 80

        public init() {}
    }

    /// `find(_:scaleDB:test:)`: the step in `readings` (time order), if any.
    public static func find(_ readings: [(time: Double, valueDB: Double)], scaleDB: Double, test: Test = Test())
        -> OffsetStep?
    {
        let recent = Array(readings.suffix(test.window))
        guard let last = best(recent, scaleDB: scaleDB, test: test) else { return nil }
        // Replayed as the readings arrived: the shortest prefix whose best split passes.
        let minimum = test.minimumBefore + test.minimumAfter
        for end in minimum...recent.count {
            guard let early = best(Array(recent.prefix(end)), scaleDB: scaleDB, test: test) else { continue }
            return OffsetStep(
                at: recent[last.split].time, shiftDB: last.shift, detectedAt: recent[end - 1].time,
                detectedAfter: end - early.split)
        }
        return nil
    }

    /// The passing split with the largest |t|: the index of its first reading after, and Δ.
    private static func best(_ readings: [(time: Double, valueDB: Double)], scaleDB: Double, test: Test)
        -> (split: Int, shift: Double)?
    {
        let scale = max(scaleDB, 0.5)
        let values = readings.map { min(max($0.valueDB, -3 * scale), 3 * scale) }
        let total = values.reduce(0, +)
        var before = 0.0
        var best: (split: Int, shift: Double, t: Double)?
        for split in values.indices {
            defer { before += values[split] }
            let nBefore = Double(split)
            let nAfter = Double(values.count - split)
            guard split >= test.minimumBefore, values.count - split >= test.minimumAfter else { continue }
            let shift = (total - before) / nAfter - before / nBefore
            let t = shift / (scale * (1 / nBefore + 1 / nAfter).squareRoot())
            if abs(t) >= test.threshold, abs(shift) >= test.minimumShiftDB, abs(t) > abs(best?.t ?? 0) {
                best = (split, shift, t)
            }
        }
        return best.map { ($0.split, $0.shift) }
    }
}
