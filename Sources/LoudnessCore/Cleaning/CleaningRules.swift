/// The thresholds of ``SessionCleaner``; the defaults are those of docs/ARCHITECTURE.md,
/// "Cleaning a check-in".
///
/// Windows are in seconds of offset, not sample counts, so gaps shrink a window rather than
/// stretching it; each half-width gets 0.5 s of tolerance for float rounding of stored offsets.
public struct CleaningRules: Sendable, Equatable {
    /// Averages at or below this are invalid (silence, −160 dBFS meter floor). Default −120.
    public var minimumLevelDBFS: Double = -120
    /// Averages above this are invalid (clipping, nonsense). Default +6.
    public var maximumLevelDBFS: Double = 6
    /// A peak more than this many dB under its average is invalid. Default 0.5.
    public var peakToleranceDB: Double = 0.5
    /// Stuck meter: at least this many consecutive valid seconds… Default 5.
    public var stuckMinimumRun: Int = 5
    /// …whose averages span (max − min) less than this. Default 0.01 dB.
    public var stuckMaximumRangeDB: Double = 0.01
    /// Hampel window half-width: 3 s each side, a 7-second centred window.
    public var hampelHalfWindowSeconds: Double = 3
    /// Hampel threshold in scaled MADs. Default 3.
    public var hampelThreshold: Double = 3
    /// Floor on the Hampel scale 1.4826·MAD. Default 1 dB.
    public var hampelScaleFloorDB: Double = 1
    /// Seconds after a spike that are also removed (meter decay). Default 2.
    public var afterSpikeSeconds: Double = 2
    /// Dropout running-median half-width: 7 s each side, a 15-second centred window.
    public var dropoutHalfWindowSeconds: Double = 7
    /// Running median this far under the session median marks a dropout. Default 10 dB.
    public var dropoutDepthDB: Double = 10
    /// A dropout must last at least this many consecutive valid seconds. Default 10.
    public var dropoutMinimumRun: Int = 10
    /// A check-in needs at least this many valid seconds. Default 15.
    public var minimumValidSeconds: Int = 15
    /// …and at least this share of its seconds valid. Default 0.5.
    public var minimumValidShare: Double = 0.5

    /// `init()`: the defaults of docs/ARCHITECTURE.md, "Cleaning a check-in".
    public init() {}
}
