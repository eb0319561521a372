import Foundation
import Testing

@testable import HearClearStore

/// The compact sample encoding (migration 0017) gives back every value the intake can store,
/// bit for bit, and keeps what phones send small.
@Suite("Sample codec")
struct SampleCodecTests {
    /// What the intake stores for a JSON number written as `text` (`CheckinValidator`: the
    /// number as a `Double`, then `Float`).
    static func stored(_ text: String) -> Float { Float(Double(text)!) }

    static func contiguous(_ count: Int) -> [Int32] { (0..<Int32(count)).map { $0 } }

    /// Decodes what `series` encodes to, and fails unless every value has the same bits.
    @discardableResult
    static func roundTrip(_ series: SampleSeries, sourceLocation: SourceLocation = #_sourceLocation) throws -> [UInt8] {
        let bytes = try SampleCodec.encode(series)
        let back = try SampleCodec.decode(bytes)
        #expect(back.offsetsSeconds == series.offsetsSeconds, sourceLocation: sourceLocation)
        #expect(
            back.averageDBFS.map(\.bitPattern) == series.averageDBFS.map(\.bitPattern), sourceLocation: sourceLocation)
        #expect(back.peakDBFS.map(\.bitPattern) == series.peakDBFS.map(\.bitPattern), sourceLocation: sourceLocation)
        #expect(back.lceqDdB == series.lceqDdB, sourceLocation: sourceLocation)
        #expect(back.bandIndexes == series.bandIndexes, sourceLocation: sourceLocation)
        #expect(back.bandsDdB == series.bandsDdB, sourceLocation: sourceLocation)
        return bytes
    }

    /// Every level of `texts` as averages and, shifted by one, as peaks, in check-ins of 3,600.
    static func roundTripLevels(_ texts: [String]) throws -> (bytes: Int, values: Int) {
        var total = 0
        for start in stride(from: 0, to: texts.count, by: 3_600) {
            let chunk = texts[start..<min(start + 3_600, texts.count)].map(stored)
            let peaks = Array(chunk.dropFirst()) + [chunk[0]]
            let bytes = try roundTrip(
                SampleSeries(offsetsSeconds: contiguous(chunk.count), averageDBFS: chunk, peakDBFS: peaks))
            total += bytes.count
        }
        return (total, texts.count * 2)
    }

    @Test("every 0.1 dB level from −200 to 20 dBFS comes back with its bits, on the 0.1 dB grid")
    func everyTenth() throws {
        let texts = (-2_000...200).map { String(format: "%.1f", Double($0) / 10) }
        for text in texts {
            let value = Self.stored(text)
            let step = try #require(LevelStreams.step(value, scale: 10), "\(text) is on the 0.1 dB grid")
            #expect(LevelStreams.level(step, scale: 10).bitPattern == value.bitPattern)
        }
        let (bytes, values) = try Self.roundTripLevels(texts)
        // Neighbouring levels: residuals of ±1, and no exceptions (4 bytes each).
        #expect(bytes < values / 2, "\(bytes) bytes for \(values) levels")
    }

    @Test("every 0.01 dB level from −200 to 20 dBFS comes back with its bits, on the 0.01 dB grid")
    func everyHundredth() throws {
        let texts = (-20_000...2_000).map { String(format: "%.2f", Double($0) / 100) }
        for text in texts {
            let value = Self.stored(text)
            let step = try #require(LevelStreams.step(value, scale: 100), "\(text) is on the 0.01 dB grid")
            #expect(LevelStreams.level(step, scale: 100).bitPattern == value.bitPattern)
        }
        let (bytes, values) = try Self.roundTripLevels(texts)
        #expect(bytes < values, "\(bytes) bytes for \(values) levels")
    }

    @Test("levels on no grid, and values the intake never stores, come back with their bits")
    func offGridLevels() throws {
        // The 2013 client's amplitudes (6 significant digits) as v1 turns them into dBFS.
        let amplitudes = [0.031, 0.0312345, 1.0, 0.000001, 9.99999, 0.5]
        let v1 = amplitudes.map { Float(20 * log10($0)) }
        let odd: [Float] = [
            .nan, -.nan, Float(bitPattern: 0x7FC0_1234), .infinity, -.infinity, -0.0, 0, .leastNonzeroMagnitude,
            .greatestFiniteMagnitude, -31.234_567, 1e9, -200.000_01,
        ]
        let all = v1 + odd
        try Self.roundTrip(
            SampleSeries(offsetsSeconds: Self.contiguous(all.count), averageDBFS: all, peakDBFS: all.reversed()))
        // Grid and off-grid mixed: the grid ones keep their steps between exceptions.
        let mixed: [Float] = (0..<300).map { (i: Int) -> Float in
            let onGrid = Self.stored(String(format: "%.1f", -40 + Double(i % 50) / 10))
            return i % 7 == 3 ? v1[i % v1.count] : onGrid
        }
        try Self.roundTrip(
            SampleSeries(offsetsSeconds: Self.contiguous(300), averageDBFS: mixed, peakDBFS: mixed.map { $0 + 6 }))
        // All off the grid (a v1 check-in): 4 bytes a level, a bitmap, and a block or two for the
        // rare level that lands on a grid.
        let allOff: [Float] = (0..<300).map { (i: Int) -> Float in Float(20 * log10(0.01 + Double(i) * 0.000_123_4)) }
        let bytes = try Self.roundTrip(
            SampleSeries(offsetsSeconds: Self.contiguous(300), averageDBFS: allOff, peakDBFS: allOff))
        #expect(bytes.count <= 300 * 8 + 200)
    }

    @Test("every LCeq and band value of the Int16 range comes back")
    func wholeNumbers() throws {
        let all = (Int(Int16.min)...Int(Int16.max)).map { Int16($0) }
        for start in stride(from: 0, to: all.count, by: 3_600) {
            let chunk = Array(all[start..<min(start + 3_600, all.count)])
            let n = chunk.count
            let levels = [Float](repeating: -30, count: n)
            // Three bands a sample: the values, their reverse, and the extremes.
            var bands: [Int16] = []
            for i in 0..<n { bands += [chunk[i], chunk[n - 1 - i], i % 2 == 0 ? .min : .max] }
            try Self.roundTrip(
                SampleSeries(
                    offsetsSeconds: Self.contiguous(n), averageDBFS: levels, peakDBFS: levels, lceqDdB: chunk,
                    bandIndexes: [0, 11, 23], bandsDdB: bands))
        }
    }

    @Test("offsets with gaps, a first offset other than 0, and a day's span come back")
    func offsets() throws {
        let cases: [[Int32]] = [
            [0], [5], [0, 1, 2, 4, 5, 9], [0, 86_400], [3, 4, 5], [0, 2, 4, 6, 8, 10, 12],
            [0, 1, 2, 3, 1_000, 1_001, 1_002, 86_399], [-4, 0, Int32.max], [Int32.min, Int32.max],
        ]
        for offsets in cases {
            let levels = offsets.map { Float($0 % 50) - 60 }
            try Self.roundTrip(SampleSeries(offsetsSeconds: offsets, averageDBFS: levels, peakDBFS: levels))
        }
        try Self.roundTrip(SampleSeries(offsetsSeconds: [], averageDBFS: [], peakDBFS: []))
        // Contiguous offsets cost nothing; a gap a few bytes.
        let levels = [Float](repeating: -30, count: 300)
        let plain = try SampleCodec.encode(
            SampleSeries(offsetsSeconds: Self.contiguous(300), averageDBFS: levels, peakDBFS: levels))
        var gapped = Self.contiguous(300)
        for i in 150..<300 { gapped[i] += 2 }
        let withGap = try Self.roundTrip(SampleSeries(offsetsSeconds: gapped, averageDBFS: levels, peakDBFS: levels))
        #expect(withGap.count <= plain.count + 6)
    }

    @Test("random check-ins come back whole")
    func randomSeries() throws {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<200 {
            let n = Int.random(in: 1...400, using: &generator)
            var offsets: [Int32] = []
            var offset: Int32 = 0
            for _ in 0..<n {
                offsets.append(offset)
                offset += Bool.random(using: &generator) && Int.random(in: 0..<10) == 0 ? Int32.random(in: 2...900) : 1
            }
            let hundredths = Bool.random(using: &generator)
            let average = (0..<n).map { _ in
                Self.stored(String(format: hundredths ? "%.2f" : "%.1f", Double.random(in: -200...20)))
            }
            let peak = average.map { min(20, $0 + Float.random(in: 0...30)) }
            let k = Int.random(in: 0...24)
            try Self.roundTrip(
                SampleSeries(
                    offsetsSeconds: offsets, averageDBFS: average, peakDBFS: peak,
                    lceqDdB: Bool.random() ? (0..<n).map { _ in Int16.random(in: -2_000...200) } : nil,
                    bandIndexes: k > 0 ? (0..<k).map(Int16.init) : nil,
                    bandsDdB: k > 0 ? (0..<n * k).map { _ in Int16.random(in: -2_000...200) } : nil))
        }
    }

    @Test("bytes it cannot have written are refused, never trusted, and arrays that do not line up are not written")
    func corruptInput() throws {
        let levels = (0..<300).map { Self.stored(String(format: "%.1f", -40 + Double($0 % 17) / 10)) }
        var offsets = Self.contiguous(300)
        offsets[200] += 3
        let bytes = try SampleCodec.encode(
            SampleSeries(
                offsetsSeconds: offsets, averageDBFS: levels, peakDBFS: levels,
                lceqDdB: [Int16](repeating: -300, count: 300),
                bandIndexes: [3, 4], bandsDdB: [Int16](repeating: -400, count: 600)))
        for length in 0..<bytes.count {
            #expect(throws: SampleCodecError.self) { try SampleCodec.decode(Array(bytes[..<length])) }
        }
        #expect(throws: SampleCodecError.self) { try SampleCodec.decode(bytes + [0]) }
        #expect(throws: SampleCodecError.self) { try SampleCodec.decode([2] + bytes.dropFirst()) }
        let misaligned = [
            SampleSeries(offsetsSeconds: [0, 1], averageDBFS: [-30], peakDBFS: [-20, -20]),
            SampleSeries(offsetsSeconds: [0], averageDBFS: [-30], peakDBFS: [-20], lceqDdB: []),
            SampleSeries(offsetsSeconds: [0], averageDBFS: [-30], peakDBFS: [-20], bandIndexes: [1], bandsDdB: [1, 2]),
            SampleSeries(offsetsSeconds: [0], averageDBFS: [-30], peakDBFS: [-20], bandIndexes: [1]),
            SampleSeries(offsetsSeconds: [0], averageDBFS: [-30], peakDBFS: [-20], bandIndexes: [], bandsDdB: []),
        ]
        for series in misaligned {
            #expect(throws: SampleCodecError.self) { try SampleCodec.encode(series) }
        }
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<2_000 {
            let noise = (0..<Int.random(in: 0...64, using: &generator)).map { _ in UInt8.random(in: 0...255) }
            _ = try? SampleCodec.decode([1] + noise)
        }
    }

    @Test("a 5-minute check-in at 0.1 dB, as phones send it, takes about 2 bytes a sample")
    func typicalSize() throws {
        var level = -30.0
        var average: [Float] = []
        var peak: [Float] = []
        var random = SystemRandomNumberGenerator()
        for _ in 0..<300 {
            level += Double.random(in: -0.75...0.75, using: &random) + 0.1 * (-30 - level)
            let a = min(-3, level + Double.random(in: -1.5...1.5, using: &random))
            average.append(Self.stored(String(format: "%.1f", a)))
            peak.append(Self.stored(String(format: "%.1f", min(0, a + 3 + Double.random(in: 0...9, using: &random)))))
        }
        let bytes = try Self.roundTrip(
            SampleSeries(offsetsSeconds: Self.contiguous(300), averageDBFS: average, peakDBFS: peak))
        #expect(bytes.count <= 300 * 2, "\(bytes.count) bytes")
    }
}
