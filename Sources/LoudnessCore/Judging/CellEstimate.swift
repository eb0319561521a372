/// The robust level of one cell (venue × local weekday × hour) and how each check-in fared.
public struct CellEstimate: Sendable, Equatable {
    /// Huber M-estimate over the per-device values of the non-outlier check-ins, dB.
    public let levelDB: Double
    /// `levelDB ± 1.96·scaleDB/√deviceCount`, dB: an approximate 95 % interval.
    public let rangeDB: ClosedRange<Double>
    /// The scale of the Huber estimate and the range, dB: `max(1.4826·MAD, 1 dB)` of the
    /// per-device values, and at least the venue's pooled within-cell scale when known.
    public let scaleDB: Double
    /// All check-ins given to the estimator, outliers included.
    public let checkinCount: Int
    /// Check-ins in the estimate (not outliers): the API's `checkins`.
    public let includedCheckinCount: Int
    /// Distinct devices among the included check-ins: the API's `devices`.
    public let deviceCount: Int
    /// ``Confidence/rate(checkins:devices:halfWidthDB:)`` of the included counts and range.
    public let confidence: Confidence
    /// One assessment per input check-in, in input order.
    public let assessments: [CheckinAssessment]

    /// `init(...)`: memberwise.
    public init(
        levelDB: Double, rangeDB: ClosedRange<Double>, scaleDB: Double, checkinCount: Int,
        includedCheckinCount: Int, deviceCount: Int, confidence: Confidence,
        assessments: [CheckinAssessment]
    ) {
        self.levelDB = levelDB
        self.rangeDB = rangeDB
        self.scaleDB = scaleDB
        self.checkinCount = checkinCount
        self.includedCheckinCount = includedCheckinCount
        self.deviceCount = deviceCount
        self.confidence = confidence
        self.assessments = assessments
    }
}
