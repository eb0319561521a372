/// Page's tabular cumulative sum, two-sided (Page 1954; Montgomery, *Introduction to Statistical
/// Quality Control*, §9.1): the detector of a lasting shift in the mean of standardised values
/// (docs/ARCHITECTURE.md, "Venues that change", "Phones that drift").
///
/// `upper ← max(0, upper + w·(z − k))`, `lower ← max(0, lower + w·(−z − k))`; an alarm when
/// either exceeds `h`. `k` (the allowance) is about half the shift to detect, in standard
/// deviations; `h` sets how rarely it alarms on no shift: with `k = 0.5`, `h = 4` alarms every 168
/// values on average and `h = 5` every 465, and detects a 1 σ shift after 8.4 and 10.4
/// (`CUSUMTests` checks these run lengths). A weight `w` (0…1) lets a value count for less, as a
/// check-in of a new device does. The change is dated to the first value after the side's last
/// zero: where its run began.
public struct CUSUM: Sendable, Equatable {
    /// Which way the mean moved.
    public enum Direction: String, Sendable, Equatable, Codable {
        case up, down
    }

    /// An alarm: the side that crossed, the index of the first value of its run (where the shift
    /// began) and of the value at which it crossed.
    public struct Alarm: Sendable, Equatable {
        public var direction: Direction
        public var start: Int
        public var at: Int
        public var statistic: Double
    }

    /// The allowance, standard deviations.
    public var k: Double
    /// The decision interval, standard deviations.
    public var h: Double
    /// The sums so far.
    public private(set) var upper = 0.0
    public private(set) var lower = 0.0
    private var upperStart = 0
    private var lowerStart = 0

    /// `init(k:h:)`: both sums at 0.
    public init(k: Double, h: Double) {
        self.k = k
        self.h = h
    }

    /// `update(_:weight:index:)`: adds the standardised value `z` (observation `index`, increasing)
    /// with `weight`; the alarm when a sum now exceeds `h` (the upper side first), else nil. The
    /// sums go on after an alarm; call ``reset(from:)`` to start over.
    public mutating func update(_ z: Double, weight: Double = 1, index: Int) -> Alarm? {
        let w = min(max(weight, 0), 1)
        if upper == 0 { upperStart = index }
        if lower == 0 { lowerStart = index }
        upper = max(0, upper + w * (z - k))
        lower = max(0, lower + w * (-z - k))
        if upper > h { return Alarm(direction: .up, start: upperStart, at: index, statistic: upper) }
        if lower > h { return Alarm(direction: .down, start: lowerStart, at: index, statistic: lower) }
        return nil
    }

    /// `reset(from:)`: both sums back to 0; the next run starts at `index`.
    public mutating func reset(from index: Int = 0) {
        upper = 0
        lower = 0
        upperStart = index
        lowerStart = index
    }

    /// `runLength(_:)`: how many values of `values` (standardised) until the first alarm (1 = the
    /// first value), nil when none.
    public static func runLength(k: Double, h: Double, _ values: some Sequence<Double>) -> Int? {
        var cusum = CUSUM(k: k, h: h)
        for (index, z) in values.enumerated() where cusum.update(z, index: index) != nil {
            return index + 1
        }
        return nil
    }
}
