/// What a check-in may carry per second besides its levels (docs/ARCHITECTURE.md, "Sound
/// character"): the second's LCeq and Z-weighted third-octave band levels, dBFS, lined up with its
/// ``SessionSamples``. A check-in carries LCeq on every sample or none, and the same set of bands on
/// every sample or none.
///
/// Bands are numbered 0 … 23 from 50 Hz to 10 kHz (``nominalCentresHz``, the bands the meter's
/// `ThirdOctaveBands` in AudioMetering measures).
public struct SpectralSamples: Sendable, Equatable {
    /// Nominal centres of the 24 third-octave bands, 50 Hz … 10 kHz, as IEC 61260-1 and every sound
    /// level meter name them: band `i` is centred on `nominalCentresHz[i]`. The one list of them:
    /// the meter's `ThirdOctaveBands` and the API's band keys are these.
    public static let nominalCentresHz: [Int] = [
        50, 63, 80, 100, 125, 160, 200, 250, 315, 400, 500, 630, 800, 1000, 1250, 1600, 2000, 2500, 3150, 4000,
        5000, 6300, 8000, 10000,
    ]
    /// The 24 third-octave bands, 50 Hz … 10 kHz.
    public static let bandCount = nominalCentresHz.count

    /// Number of samples (seconds).
    public let count: Int
    /// One LCeq a sample (dBFS), or nil when the check-in carries none.
    public let lceqDBFS: [Double]?
    /// The bands every sample carries, ascending band numbers (0 = 50 Hz); empty for none.
    public let bandIndexes: [Int]
    /// The band levels, sample-major: sample `i`'s band `bandIndexes[j]` at `i · bandIndexes.count + j`.
    public let bandsDBFS: [Double]

    /// `init(count:lceqDBFS:bandIndexes:bandsDBFS:)`: checks that the arrays line up with `count`
    /// samples and that band numbers are ascending within 0 … 23.
    public init(count: Int, lceqDBFS: [Double]?, bandIndexes: [Int], bandsDBFS: [Double])
        throws(SessionSamplesError)
    {
        if let lceqDBFS, lceqDBFS.count != count {
            throw .lengthMismatch(field: "lceqDBFS", expected: count, actual: lceqDBFS.count)
        }
        guard bandIndexes.allSatisfy({ (0..<Self.bandCount).contains($0) }),
            zip(bandIndexes, bandIndexes.dropFirst()).allSatisfy({ $0 < $1 })
        else {
            throw .lengthMismatch(field: "bandIndexes", expected: Self.bandCount, actual: bandIndexes.count)
        }
        guard bandsDBFS.count == count * bandIndexes.count else {
            throw .lengthMismatch(
                field: "bandsDBFS", expected: count * bandIndexes.count, actual: bandsDBFS.count)
        }
        self.count = count
        self.lceqDBFS = lceqDBFS
        self.bandIndexes = bandIndexes
        self.bandsDBFS = bandsDBFS
    }

    /// As stored (0.1 dB integers); nil when the check-in carries neither LCeq nor bands.
    public init?(count: Int, lceqDdB: [Int16]?, bandIndexes: [Int16]?, bandsDdB: [Int16]?)
        throws(SessionSamplesError)
    {
        guard lceqDdB != nil || bandIndexes != nil else { return nil }
        try self.init(
            count: count, lceqDBFS: lceqDdB.map { $0.map(Self.decibels) },
            bandIndexes: (bandIndexes ?? []).map(Int.init), bandsDBFS: (bandsDdB ?? []).map(Self.decibels))
    }

    /// Level of the `position`-th carried band (``bandIndexes``) in sample `sample`.
    @inline(__always)
    public func band(_ position: Int, sample: Int) -> Double {
        bandsDBFS[sample * bandIndexes.count + position]
    }

    /// dB from 0.1 dB.
    public static func decibels(_ ddb: Int16) -> Double { Double(ddb) / 10 }

    /// 0.1 dB from dB, rounded to the nearest (half away from zero); the value must lie within
    /// ±3276.7 dB.
    public static func decidecibels(_ db: Double) -> Int16 { Int16((db * 10).rounded()) }
}
