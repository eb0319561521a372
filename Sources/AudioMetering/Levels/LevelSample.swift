/// Levels of one second of audio, in dB relative to digital full scale.
public struct LevelSample: Sendable, Equatable {
    /// Digital silence (−∞ dBFS) is reported as this floor.
    public static let silenceFloorDBFS = -160.0

    /// Start of the second, counted from the beginning of the file.
    public var offsetSeconds: Int
    /// RMS level: mean square pooled over all channels, like sox `stats` "RMS lev dB".
    public var averageDBFS: Double
    /// Largest absolute sample over all channels.
    public var peakDBFS: Double
    /// RMS level after IEC 61672 A-weighting, pooled like `averageDBFS`: the second's LAeq.
    public var aWeightedDBFS: Double
    /// RMS level after IEC 61672 C-weighting, pooled like `averageDBFS`: the second's LCeq.
    public var cWeightedDBFS: Double
    /// Unweighted third-octave band levels, one per ``ThirdOctaveBands`` band (50 Hz … 10 kHz),
    /// FFT approximations (see ``SpectralMeter``); nil for a band above Nyquist.
    public var bandsDBFS: [Double?]

    public init(
        offsetSeconds: Int, averageDBFS: Double, peakDBFS: Double, aWeightedDBFS: Double, cWeightedDBFS: Double,
        bandsDBFS: [Double?]
    ) {
        self.offsetSeconds = offsetSeconds
        self.averageDBFS = averageDBFS
        self.peakDBFS = peakDBFS
        self.aWeightedDBFS = aWeightedDBFS
        self.cWeightedDBFS = cWeightedDBFS
        self.bandsDBFS = bandsDBFS
    }
}
