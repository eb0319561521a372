/// The average and peak levels of ``SampleCodec``: steps of a 0.1 or 0.01 dB grid where the
/// stored `Float` is one, its 32 bits where not.
enum LevelStreams {
    /// The grids, finest last: the coarsest on which every level that is on any grid lies is used.
    static let scales: [Int64] = [10, 100]
    /// Steps further from 0 are not on the grid (±20,000 dB at 0.01 dB): a step stays exact in
    /// a `Float` and a `Double`, and a corrupt one is refused on reading.
    static let maxStep: Int64 = 2_000_000

    /// The level of `step` on the grid of `scale`: the `Float` the intake stores for the decimal
    /// `step / scale` (it parses the JSON number as a `Double`, then narrows it).
    @inline(__always)
    static func level(_ step: Int64, scale: Int64) -> Float {
        Float(Double(step) / Double(scale))
    }

    /// The step of `value` on the grid of `scale`, when `value` is exactly that grid's level.
    @inline(__always)
    static func step(_ value: Float, scale: Int64) -> Int64? {
        guard value.isFinite else { return nil }
        let rounded = (Double(value) * Double(scale)).rounded()
        guard abs(rounded) <= Double(maxStep) else { return nil }
        let step = Int64(rounded)
        return level(step, scale: scale).bitPattern == value.bitPattern ? step : nil
    }

    static func write(average: [Float], peak: [Float], to out: inout SampleByteWriter) {
        let finest = scales[scales.count - 1]
        // A level on no grid is an exception at any scale; one on the finest decides.
        let chosen =
            scales.first { scale in
                [average, peak].allSatisfy { levels in
                    levels.allSatisfy { step($0, scale: scale) != nil || step($0, scale: finest) == nil }
                }
            } ?? finest
        out.byte(UInt8(chosen))
        let averageSteps = average.map { step($0, scale: chosen) }
        // Each second's reference for its peak: its average's step, or the last one on the grid.
        var references: [Int64] = []
        references.reserveCapacity(average.count)
        var last: Int64 = 0
        var residuals: [Int64] = []
        residuals.reserveCapacity(average.count)
        for current in averageSteps {
            residuals.append(current.map { $0 - last } ?? 0)
            last = current ?? last
            references.append(last)
        }
        writeStream(average, steps: averageSteps, residuals: residuals, to: &out)
        let peakSteps = peak.map { step($0, scale: chosen) }
        residuals = zip(peakSteps, references).map { step, reference in step.map { $0 - reference } ?? 0 }
        writeStream(peak, steps: peakSteps, residuals: residuals, to: &out)
    }

    private static func writeStream(
        _ values: [Float], steps: [Int64?], residuals: [Int64], to out: inout SampleByteWriter
    ) {
        let exceptions = steps.indices.filter { steps[$0] == nil }
        out.varint(UInt64(exceptions.count))
        switch ExceptionList(count: exceptions.count, of: values.count) {
        case .all: break
        case .bitmap:
            var bitmap = [UInt8](repeating: 0, count: (values.count + 7) / 8)
            for index in exceptions { bitmap[index >> 3] |= 1 << (index & 7) }
            for byte in bitmap { out.byte(byte) }
        case .gaps:
            var previous = 0
            for index in exceptions {
                out.varint(UInt64(index - previous))
                previous = index
            }
        }
        for index in exceptions { out.float(values[index]) }
        out.packed(residuals)
    }

    static func read(count n: Int, from input: inout SampleByteReader) throws -> (average: [Float], peak: [Float]) {
        let scale = Int64(try input.byte())
        guard scales.contains(scale) else { throw SampleCodecError.malformed("level scale \(scale)") }
        let (averageExceptions, averageResiduals) = try readStream(count: n, from: &input)
        let (peakExceptions, peakResiduals) = try readStream(count: n, from: &input)
        var average: [Float] = []
        var peak: [Float] = []
        average.reserveCapacity(n)
        peak.reserveCapacity(n)
        var last: Int64 = 0
        for i in 0..<n {
            if let exception = averageExceptions[i] {
                average.append(exception)
            } else {
                last = try checked(last &+ averageResiduals[i])
                average.append(level(last, scale: scale))
            }
            if let exception = peakExceptions[i] {
                peak.append(exception)
            } else {
                peak.append(level(try checked(last &+ peakResiduals[i]), scale: scale))
            }
        }
        return (average, peak)
    }

    private static func readStream(count n: Int, from input: inout SampleByteReader) throws
        -> (exceptions: [Float?], residuals: [Int64])
    {
        let e = try input.count(atMost: n)
        var indexes: [Int] = []
        indexes.reserveCapacity(e)
        switch ExceptionList(count: e, of: n) {
        case .all: indexes = Array(0..<n)
        case .bitmap:
            for byteIndex in 0..<(n + 7) / 8 {
                let byte = try input.byte()
                for bit in 0..<8 where byte & (1 << bit) != 0 { indexes.append(byteIndex * 8 + bit) }
            }
            guard indexes.count == e, indexes.last.map({ $0 < n }) ?? true else {
                throw SampleCodecError.malformed("level exception bitmap")
            }
        case .gaps:
            var index = 0
            for position in 0..<e {
                let step = try input.count(atMost: n)
                index += step
                guard index < n, position == 0 || step > 0 else {
                    throw SampleCodecError.malformed("level exception at \(index)")
                }
                indexes.append(index)
            }
        }
        var exceptions = [Float?](repeating: nil, count: n)
        for index in indexes { exceptions[index] = try input.float() }
        return (exceptions, try input.packed(count: n))
    }

    private static func checked(_ step: Int64) throws -> Int64 {
        guard step.magnitude <= maxStep.magnitude else { throw SampleCodecError.malformed("level step \(step)") }
        return step
    }
}

/// How a level stream lists its exceptions (levels kept as their 32 bits): not at all when every
/// level is one, as a bitmap of the samples when more than one in 8 are (then cheaper than an
/// index each), else each as its distance from the previous one.
enum ExceptionList {
    case all, bitmap, gaps

    init(count e: Int, of n: Int) {
        self = e == n ? .all : e * 8 > n ? .bitmap : .gaps
    }
}
