import Foundation
import Testing

@testable import LoudnessCore

/// The cleaning filters judge every second from a small window of its neighbours, reusing one
/// buffer and sorting it in place (no allocation per second). These check that this gives the
/// very same answers as the definitions written out plainly here — a window by filtering every
/// sample by its distance in time, medians by `sorted()` — on random sessions with gaps,
/// unconsidered seconds, repeated levels, dips and spikes.
@Suite("Cleaning windows: in-place medians equal the plain definitions")
struct CleaningWindowTests {

    /// The median by its definition: the middle of the sorted values, or the mean of the two.
    static func plainMedian(_ values: [Double]) -> Double? {
        guard !values.isEmpty else { return nil }
        let sorted = values.sorted()
        let middle = sorted.count / 2
        return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
    }

    /// The considered levels within ±(half + 0.5) s of second `index`.
    static func plainWindow(_ index: Int, offsets: [Double], levels: [Double], considered: [Bool], half: Double)
        -> [Double]
    {
        levels.indices.filter { considered[$0] && abs(offsets[$0] - offsets[index]) < half + 0.5 }.map { levels[$0] }
    }

    /// A session: mostly one sample a second, some gaps; 0.1 dB levels with repeats, dips and
    /// spikes; some seconds not considered.
    static func session(_ random: inout SplitMix64) -> (offsets: [Double], levels: [Double], considered: [Bool]) {
        let count = random.int(in: 1...400)
        var offsets: [Double] = []
        var levels: [Double] = []
        var considered: [Bool] = []
        var offset = 0.0
        var base = -40 + random.unit() * 30
        for _ in 0..<count {
            offsets.append(offset)
            offset += random.unit() < 0.05 ? Double(random.int(in: 2...20)) : 1
            if random.unit() < 0.02 { base += random.unit() < 0.5 ? -15 : 15 }
            var level = (base + (random.unit() - 0.5) * 6)
            if random.unit() < 0.03 { level += 20 }
            if random.unit() < 0.2 { level = levels.last ?? level }
            levels.append((level * 10).rounded() / 10)
            considered.append(random.unit() > 0.1)
        }
        return (offsets, levels, considered)
    }

    @Test("the in-place median equals the median of sorted() and RobustStatistics.median, bit for bit")
    func medians() {
        var random = SplitMix64(seed: 27)
        for _ in 0..<5_000 {
            let count = random.int(in: 1...70)
            var values = (0..<count).map { _ in
                random.unit() < 0.3 ? Double(random.int(in: -3...3)) : (random.unit() - 0.5) * 200
            }
            let plain = Self.plainMedian(values)
            let selected = RobustStatistics.median(values)
            let inPlace = RobustStatistics.medianSortingInPlace(&values)
            #expect(inPlace?.bitPattern == plain?.bitPattern)
            #expect(inPlace?.bitPattern == selected?.bitPattern)
        }
        var empty: [Double] = []
        #expect(RobustStatistics.medianSortingInPlace(&empty) == nil)
    }

    @Test("a median at or under a limit, told by counting, is the median's answer, also with exactly half under")
    func countingAgainstTheMedian() {
        var random = SplitMix64(seed: 31)
        var exactlyHalf = 0
        for _ in 0..<20_000 {
            let count = random.int(in: 1...16)
            let limit = Double(random.int(in: -400 ... -300)) / 10
            // Levels near the limit (on it too), so that every case of the count comes up.
            let levels = (0..<count).map { _ in limit + Double(random.int(in: -30...30)) / 10 }
            let considered = levels.map { _ in true }
            let atOrUnder = levels.filter { $0 <= limit }.count
            if count % 2 == 0, atOrUnder * 2 == count { exactlyHalf += 1 }
            let counted = DropoutDetector.medianIsAtOrUnder(
                limit, count: count, atOrUnder: atOrUnder, window: 0...(count - 1), levels, considered)
            #expect(counted == (Self.plainMedian(levels)! <= limit), "\(levels) against \(limit)")
        }
        #expect(exactlyHalf >= 500)
    }

    @Test("spikes and dropouts are those of the plain definitions, on 300 random sessions")
    func filters() {
        var random = SplitMix64(seed: 29)
        let rules = CleaningRules()
        var spikes = 0
        var dropouts = 0
        for _ in 0..<300 {
            let (offsets, levels, considered) = Self.session(&random)
            let found = HampelFilter.spikes(offsets: offsets, levels: levels, considered: considered, rules: rules)
            var expected = [Bool](repeating: false, count: levels.count)
            for index in levels.indices where considered[index] {
                let window = Self.plainWindow(
                    index, offsets: offsets, levels: levels, considered: considered,
                    half: rules.hampelHalfWindowSeconds)
                guard window.count >= HampelFilter.minimumWindowCount, let centre = Self.plainMedian(window),
                    let mad = Self.plainMedian(window.map { abs($0 - centre) })
                else { continue }
                let scale = max(1.4826 * mad, rules.hampelScaleFloorDB)
                expected[index] = abs(levels[index] - centre) > rules.hampelThreshold * scale
            }
            #expect(found == expected)
            spikes += found.filter { $0 }.count

            let dropped = DropoutDetector.dropouts(
                offsets: offsets, levels: levels, considered: considered, rules: rules)
            var candidates: [Int] = []
            var flagged = [Bool](repeating: false, count: levels.count)
            let session = Self.plainMedian(levels.indices.filter { considered[$0] }.map { levels[$0] })
            for index in levels.indices where considered[index] {
                let window = Self.plainWindow(
                    index, offsets: offsets, levels: levels, considered: considered,
                    half: rules.dropoutHalfWindowSeconds)
                if let session, let running = Self.plainMedian(window), running <= session - rules.dropoutDepthDB {
                    candidates.append(index)
                } else {
                    if candidates.count >= rules.dropoutMinimumRun { for i in candidates { flagged[i] = true } }
                    candidates = []
                }
            }
            if candidates.count >= rules.dropoutMinimumRun { for i in candidates { flagged[i] = true } }
            #expect(dropped == flagged)
            dropouts += dropped.filter { $0 }.count
        }
        // The sessions hold enough of each for the comparison to mean something.
        #expect(spikes >= 300)
        #expect(dropouts >= 100)
    }
}
