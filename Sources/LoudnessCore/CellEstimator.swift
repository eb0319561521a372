/// Robust estimation of one cell across its check-ins (DESIGN §4), in dB.
///
/// 1. Modified z-score (Iglewicz–Hoaglin) per check-in, `0.6745·(x − median)/MAD` over all the
///    cell's check-ins, MAD floored at 1/1.4826 dB (so the implied σ is at least 1 dB); with at
///    least 3 check-ins, |z| > 3.5 marks an outlier. With ≤ 2 nothing is rejected.
/// 2. The outliers are removed *before* estimating, so they do not move the cell.
/// 3. Each device's remaining check-ins collapse to their median (one device, one vote).
/// 4. Huber M-estimate (k = 1.345) of the device values with the pooled scale
///    `max(1.4826·MAD(device values), 1 dB)`, by IRLS (``HuberEstimator``).
/// 5. Range `estimate ± 1.96·scale/√devices`; confidence by ``Confidence/rate(checkins:devices:halfWidthDB:)``.
public struct CellEstimator: Sendable {
    /// Huber tuning constant. Default 1.345.
    public var huberK: Double = HuberEstimator.defaultK
    /// |modified z| above this is an outlier. Default 3.5.
    public var outlierThreshold: Double = 3.5
    /// Floor on σ-scaled dispersion, for both the pooled scale and the MAD of z-scores. Default 1 dB.
    public var scaleFloorDB: Double = 1
    /// Fewest check-ins in a cell before any may be rejected. Default 3.
    public var minimumCheckinsForRejection: Int = 3
    /// Multiplier of the standard error in the range. Default 1.96.
    public var rangeZ: Double = 1.96

    /// `init()`: the DESIGN §4 defaults.
    public init() {}

    /// `estimate(_:)`: the cell estimate, or `nil` for no check-ins.
    public func estimate(_ checkins: [CellCheckin]) -> CellEstimate? {
        let zScores = modifiedZScores(checkins.map(\.levelDB))
        let canReject = checkins.count >= minimumCheckinsForRejection
        let assessments = zip(checkins, zScores).map { checkin, z in
            CheckinAssessment(
                checkinID: checkin.checkinID, modifiedZ: z,
                isOutlier: canReject && abs(z) > outlierThreshold)
        }
        let included = zip(checkins, assessments).filter { !$0.1.isOutlier }.map(\.0)
        let deviceLevels = Self.deviceValues(included)
        guard let scale = HuberEstimator.pooledScale(deviceLevels, floorDB: scaleFloorDB),
            let level = HuberEstimator.location(deviceLevels, scale: scale, k: huberK)
        else { return nil }
        let halfWidth = rangeZ * scale / Double(deviceLevels.count).squareRoot()
        return CellEstimate(
            levelDB: level, rangeDB: (level - halfWidth)...(level + halfWidth), scaleDB: scale,
            checkinCount: checkins.count, includedCheckinCount: included.count,
            deviceCount: deviceLevels.count,
            confidence: Confidence.rate(
                checkins: included.count, devices: deviceLevels.count, halfWidthDB: halfWidth),
            assessments: assessments)
    }

    /// `modifiedZScores(_:)`: `0.6745·(x − median)/max(MAD, scaleFloorDB/1.4826)` for each value.
    public func modifiedZScores(_ levelsDB: [Double]) -> [Double] {
        guard let centre = RobustStatistics.median(levelsDB),
            let mad = RobustStatistics.medianAbsoluteDeviation(levelsDB)
        else { return [] }
        let flooredMAD = max(mad, scaleFloorDB / RobustStatistics.madToSigma)
        return levelsDB.map { 0.6745 * ($0 - centre) / flooredMAD }
    }

    /// `deviceValues(_:)`: one value per device, the median of its check-ins' levels, ordered by
    /// device id (so results do not depend on input order).
    public static func deviceValues(_ checkins: [CellCheckin]) -> [Double] {
        let byDevice = Dictionary(grouping: checkins, by: \.deviceID)
        return byDevice.keys.sorted().compactMap { device in
            RobustStatistics.median(byDevice[device]?.map(\.levelDB) ?? [])
        }
    }
}
