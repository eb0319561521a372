/// A check-in's per-second samples, as the engine reads them and as ``SampleCodec`` stores them in
/// the one `bytea` column `checkins.samples` (migration 0017).
public struct SampleSeries: Sendable, Equatable {
    /// Whole seconds after the check-in's start, strictly increasing (the first is 0).
    public var offsetsSeconds: [Int32]
    /// dBFS as the intake stored them (`Float`).
    public var averageDBFS: [Float]
    public var peakDBFS: [Float]
    /// LCeq, 0.1 dB; nil when the check-in carries none.
    public var lceqDdB: [Int16]?
    /// The bands every sample carries (0 = 50 Hz … 23 = 10 kHz) and their levels, 0.1 dB,
    /// sample-major; nil for none.
    public var bandIndexes: [Int16]?
    public var bandsDdB: [Int16]?

    public init(
        offsetsSeconds: [Int32], averageDBFS: [Float], peakDBFS: [Float], lceqDdB: [Int16]? = nil,
        bandIndexes: [Int16]? = nil, bandsDdB: [Int16]? = nil
    ) {
        self.offsetsSeconds = offsetsSeconds
        self.averageDBFS = averageDBFS
        self.peakDBFS = peakDBFS
        self.lceqDdB = lceqDdB
        self.bandIndexes = bandIndexes
        self.bandsDdB = bandsDdB
    }
}

public enum SampleCodecError: Error, Equatable, CustomStringConvertible {
    case truncated
    case malformed(String)
    /// Given to ``SampleCodec/encode(_:)``: arrays of different lengths.
    case misaligned(String)

    public var description: String {
        switch self {
        case .truncated: "stored samples end too early"
        case .malformed(let why): "stored samples are malformed: \(why)"
        case .misaligned(let what): "samples to store do not line up: \(what)"
        }
    }
}

/// The compact, lossless encoding of a check-in's samples (docs/ARCHITECTURE.md, "Sample storage").
///
/// **Lossless** means: ``decode(_:)`` gives back every value ``encode(_:)`` was given with the same
/// bits — every offset, every `Float` level (also NaN, infinities and −0, which the intake never
/// stores), every LCeq and band value of the whole `Int16` range. Compactness comes from what the
/// intake actually stores: a JSON level written with at most two decimals (`-31.2`, `-31.27`) is
/// stored as the `Float` nearest to that decimal, which is `Float(Double(step) / scale)` for a
/// whole `step` and a `scale` of 10 or 100; such values are kept as their step (a 0.1 dB or
/// 0.01 dB grid), any other `Float` as its 32 bits. The 2013 client's amplitudes (v1) and
/// `unit: amplitude` give dBFS on no grid: those cost their 4 bytes a value.
///
/// Layout, version 1 (all integers LEB128 varints; signed ones zigzag):
///
/// ```
/// byte     version (1)
/// byte     flags: 1 offsets other than 0, 1, 2 …; 2 LCeq; 4 bands
/// varint   n, the sample count
/// [flag 1] offsets: zigzag(first); m; m × (index − previous index, zigzag(step − 1)) for each
///          sample whose offset is not the previous one's + 1
/// [flag 4] k; k × zigzag(band index)
/// byte     scale of both level streams: 10 (0.1 dB) or 100 (0.01 dB)
/// levels   average, then peak: e, the exceptions (levels off the grid); which they are (none
///          more when e = n, a bitmap of the n samples when e > n/8, else each as index − previous
///          index); their 4 bytes each, big-endian; then n residuals,
///          packed: an average's step less the previous average's step, a peak's step less its
///          own second's average step (the last one on the grid); an exception's residual is 0
/// [flag 2] LCeq: n packed differences from the previous second's (the first from 0)
/// [flag 4] bands: n·k packed differences from the same band's previous second (the first from 0)
/// ```
///
/// "Packed" is blocks of ``blockLength`` values: the block's minimum (zigzag varint), its bit
/// width (a byte) and each value less the minimum in that many bits. A steady bar's second-to-second
/// changes at 0.1 dB fit in 5–7 bits, its peaks over its averages in 6–7.
public enum SampleCodec {
    /// The first byte of version 1.
    static let version: UInt8 = 1
    /// Values a block of packed residuals holds: long enough that its 2–4 bytes of header are
    /// little, short enough that one loud bump widens only its own block.
    static let blockLength = 64
    /// Samples a check-in may hold at most (the API allows 3,600); a guard against a corrupt count.
    static let maxSamples = 1 << 20
    static let maxBands = 64

    private enum Flag {
        static let gaps: UInt8 = 1
        static let lceq: UInt8 = 2
        static let bands: UInt8 = 4
    }

    /// The bytes of `series`. Its arrays must agree (else ``SampleCodecError/misaligned(_:)``):
    /// as many averages, peaks and LCeqs as offsets, and `bandsDdB` holding `bandIndexes.count`
    /// values a sample, with 1 … ``maxBands`` bands.
    public static func encode(_ series: SampleSeries) throws -> [UInt8] {
        let n = series.offsetsSeconds.count
        let bandCount = series.bandIndexes?.count ?? 0
        guard series.averageDBFS.count == n && series.peakDBFS.count == n else {
            throw SampleCodecError.misaligned(
                "\(n) offsets, \(series.averageDBFS.count) averages, \(series.peakDBFS.count) peaks")
        }
        guard series.lceqDdB.map({ $0.count == n }) ?? true else {
            throw SampleCodecError.misaligned("\(n) samples, \(series.lceqDdB?.count ?? 0) LCeq values")
        }
        guard (series.bandIndexes == nil) == (series.bandsDdB == nil),
            series.bandIndexes.map({ (1...maxBands).contains($0.count) }) ?? true,
            series.bandsDdB.map({ $0.count == n * bandCount }) ?? true
        else {
            throw SampleCodecError.misaligned(
                "\(n) samples, \(bandCount) bands, \(series.bandsDdB?.count ?? 0) band levels")
        }

        var out = SampleByteWriter()
        var flags: UInt8 = 0
        if !series.offsetsSeconds.elementsEqual(0..<Int32(n)) { flags |= Flag.gaps }
        if series.lceqDdB != nil { flags |= Flag.lceq }
        if series.bandIndexes != nil { flags |= Flag.bands }
        out.byte(version)
        out.byte(flags)
        out.varint(UInt64(n))
        if flags & Flag.gaps != 0 { writeOffsets(series.offsetsSeconds, to: &out) }
        if let indexes = series.bandIndexes {
            out.varint(UInt64(indexes.count))
            for index in indexes { out.signed(Int64(index)) }
        }
        LevelStreams.write(average: series.averageDBFS, peak: series.peakDBFS, to: &out)
        if let lceq = series.lceqDdB { out.packed(differences(lceq, stride: 1)) }
        if let bands = series.bandsDdB { out.packed(differences(bands, stride: bandCount)) }
        return out.bytes
    }

    /// The series `bytes` hold; throws ``SampleCodecError`` on anything ``encode(_:)`` cannot
    /// have written.
    public static func decode(_ bytes: [UInt8]) throws -> SampleSeries {
        var input = SampleByteReader(bytes)
        let first = try input.byte()
        guard first == version else { throw SampleCodecError.malformed("version \(first)") }
        let flags = try input.byte()
        guard flags & ~(Flag.gaps | Flag.lceq | Flag.bands) == 0 else {
            throw SampleCodecError.malformed("flags \(flags)")
        }
        let n = try input.count(atMost: maxSamples)
        let offsets =
            flags & Flag.gaps != 0
            ? try readOffsets(count: n, from: &input) : (0..<Int32(n)).map { $0 }
        var bandIndexes: [Int16]?
        if flags & Flag.bands != 0 {
            let k = try input.count(atMost: maxBands)
            bandIndexes = try (0..<k).map { _ in try int16(try input.signed()) }
        }
        let (average, peak) = try LevelStreams.read(count: n, from: &input)
        let lceq = flags & Flag.lceq != 0 ? try sums(try input.packed(count: n), stride: 1) : nil
        var bands: [Int16]?
        if let k = bandIndexes?.count {
            bands = try sums(try input.packed(count: n * k), stride: k)
        }
        guard input.isAtEnd else { throw SampleCodecError.malformed("bytes after the last value") }
        return SampleSeries(
            offsetsSeconds: offsets, averageDBFS: average, peakDBFS: peak, lceqDdB: lceq, bandIndexes: bandIndexes,
            bandsDdB: bands)
    }

    // MARK: - Offsets

    private static func writeOffsets(_ offsets: [Int32], to out: inout SampleByteWriter) {
        out.signed(Int64(offsets.first ?? 0))
        var exceptions: [(Int, Int64)] = []
        for index in offsets.indices.dropFirst() {
            let step = Int64(offsets[index]) - Int64(offsets[index - 1])
            if step != 1 { exceptions.append((index, step - 1)) }
        }
        out.varint(UInt64(exceptions.count))
        var previous = 0
        for (index, extra) in exceptions {
            out.varint(UInt64(index - previous))
            out.signed(extra)
            previous = index
        }
    }

    private static func readOffsets(count n: Int, from input: inout SampleByteReader) throws -> [Int32] {
        guard n > 0 else {
            _ = try input.signed()
            guard try input.varint() == 0 else { throw SampleCodecError.malformed("gaps without samples") }
            return []
        }
        var extras = [Int64](repeating: 0, count: n)
        let first = try input.signed()
        let m = try input.count(atMost: n)
        var index = 0
        for _ in 0..<m {
            index += try input.count(atMost: n)
            guard index > 0, index < n else { throw SampleCodecError.malformed("gap at sample \(index)") }
            extras[index] = try input.signed()
        }
        var offsets: [Int32] = []
        offsets.reserveCapacity(n)
        var offset = first
        for i in 0..<n {
            if i > 0 { offset = offset &+ 1 &+ extras[i] }
            guard let value = Int32(exactly: offset) else { throw SampleCodecError.malformed("offset \(offset)") }
            offsets.append(value)
        }
        return offsets
    }

    // MARK: - Whole-number streams (LCeq, bands)

    /// Each value less the one `stride` before it (the first `stride` from 0).
    private static func differences(_ values: [Int16], stride: Int) -> [Int64] {
        values.indices.map { i in Int64(values[i]) - (i >= stride ? Int64(values[i - stride]) : 0) }
    }

    private static func sums(_ differences: [Int64], stride: Int) throws -> [Int16] {
        var values: [Int16] = []
        values.reserveCapacity(differences.count)
        for (i, difference) in differences.enumerated() {
            values.append(try int16(difference &+ (i >= stride ? Int64(values[i - stride]) : 0)))
        }
        return values
    }

    private static func int16(_ value: Int64) throws -> Int16 {
        guard let exact = Int16(exactly: value) else { throw SampleCodecError.malformed("value \(value)") }
        return exact
    }
}
