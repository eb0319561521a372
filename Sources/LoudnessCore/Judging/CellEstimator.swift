/// Robust estimation of one cell across its check-ins (docs/ARCHITECTURE.md, "Judging a venue"),
/// in dB.
///
/// Without a ``CellContext`` (a venue too new to know its spread), the cell is judged alone:
/// 1. Modified z-score (Iglewicz–Hoaglin) per check-in, `0.6745·(x − median)/MAD` over all the
///    cell's check-ins, MAD floored at 1/1.4826 dB (so the implied σ is at least 1 dB); with at
///    least 3 check-ins, |z| > 3.5 marks an outlier. With ≤ 2 nothing is rejected.
/// 2. The outliers are removed *before* estimating, so they do not move the cell.
/// 3. Each device's remaining check-ins collapse to their median (one device, one vote).
/// 4. Huber M-estimate (k = 1.345) of the device values with the scale
///    `max(1.4826·MAD(device values), 1 dB)`, by IRLS (``HuberEstimator``).
/// 5. Range `estimate ± 1.96·scale/√devices`; confidence by ``Confidence/rate(checkins:devices:halfWidthDB:)``.
///
/// With a context, the venue's other cells help where a small cell cannot judge itself:
/// 1. The scale is the venue's pooled within-cell σ (``PooledScale``, floored at 1 dB); a cell
///    with at least ``ownScaleMinimumDevices`` devices may widen it to its own 1.4826·MAD, so a
///    genuinely mixed hour is not trimmed to the venue's usual spread. The z-score is
///    `(x − centre)/σ`, the modified z with the pooled MAD `σ/1.4826`.
/// 2. The centre is the weighted median (``RobustStatistics/weightedMedian(_:)``) of the cell's
///    device values (weight 1 each) and the profile's prediction (weight ``CellContext/priorWeight``,
///    at most 2). With a prediction, |z| > 3.5 marks an outlier whatever the cell's size (the
///    prediction breaks the tie two check-ins cannot: which of them is off); without one, only
///    with at least 3 check-ins. Every check-in may be rejected; the cell then has no estimate.
/// 3. As above, on what is left; the Huber scale and the range use
///    `max(σ, 1.4826·MAD(device values))`, so a cell as spread as the venue is not made to look
///    tighter than its check-ins.
public struct CellEstimator: Sendable {
    /// Huber tuning constant. Default 1.345.
    public var huberK: Double = HuberEstimator.defaultK
    /// |modified z| above this is an outlier. Default 3.5.
    public var outlierThreshold: Double = 3.5
    /// Floor on σ-scaled dispersion, for both the pooled scale and the MAD of z-scores. Default 1 dB.
    public var scaleFloorDB: Double = 1
    /// Fewest check-ins in a cell before any may be rejected without a profile prediction. Default 3.
    public var minimumCheckinsForRejection: Int = 3
    /// With a context, devices a cell needs before its own MAD may widen the pooled scale. Default 10.
    public var ownScaleMinimumDevices: Int = 10
    /// Multiplier of the standard error in the range. Default 1.96.
    public var rangeZ: Double = 1.96

    /// `init()`: the defaults of docs/ARCHITECTURE.md, "Judging a venue".
    public init() {}

    /// `estimate(_:context:)`: the cell estimate, or `nil` for no check-ins or when every one
    /// is an outlier.
    public func estimate(_ checkins: [CellCheckin], context: CellContext? = nil) -> CellEstimate? {
        let assessments = assess(checkins, context: context)
        let included = zip(checkins, assessments).filter { !$0.1.isOutlier }.map(\.0)
        return estimate(
            kept: included, of: checkins.count, pooledScaleDB: context?.pooledScaleDB, assessments: assessments)
    }

    /// `estimate(kept:of:pooledScaleDB:assessments:)`: the estimate from check-ins already judged
    /// (no outlier test here): one value per device, a Huber location on their scale
    /// (1.4826·MAD, floored, and at least `pooledScaleDB`), its range and confidence. `of` is how
    /// many check-ins the cell had before rejection; `assessments` are carried into the result
    /// (empty when the caller keeps its own). `nil` when nothing is kept.
    ///
    /// Check-ins that weigh less (``CellCheckin/weight``) count for less in the device values, their
    /// MAD and the Huber location; the range is over Kish's effective number of devices, and
    /// confidence counts the devices that weigh at least half the heaviest. With equal weights
    /// this is exactly the unweighted estimate.
    ///
    /// `prior`: a prediction of the cell (the venue's profile) weighing as much as a device of that
    /// weight: where every device weighs little (fresh ids), it keeps them from setting the cell
    /// alone. It enters the location only.
    public func estimate(
        kept: [CellCheckin], of checkinCount: Int, pooledScaleDB: Double?, assessments: [CheckinAssessment],
        prior: (levelDB: Double, weight: Double)? = nil
    ) -> CellEstimate? {
        let devices = Self.weightedDeviceValues(kept)
        let levels = devices.map(\.value)
        let weights = devices.map(\.weight)
        let equal = weights.allSatisfy { $0 == weights.first }
        var scale: Double
        if equal {
            guard let own = HuberEstimator.pooledScale(levels, floorDB: scaleFloorDB) else { return nil }
            scale = own
        } else {
            guard let mad = RobustStatistics.weightedMedianAbsoluteDeviation(devices.map { ($0.value, $0.weight) })
            else { return nil }
            scale = max(RobustStatistics.madToSigma * mad, scaleFloorDB)
        }
        if let pooledScaleDB { scale = max(scale, pooledScaleDB) }
        let level: Double?
        if let prior, prior.weight > 0 {
            level = HuberEstimator.location(
                levels + [prior.levelDB], weights: weights + [prior.weight], scale: scale, k: huberK)
        } else {
            level = HuberEstimator.location(levels, weights: equal ? nil : weights, scale: scale, k: huberK)
        }
        guard let level else { return nil }
        let effective = equal ? Double(levels.count) : RobustStatistics.effectiveCount(weights)
        let halfWidth = rangeZ * scale / effective.squareRoot()
        let heaviest = weights.max() ?? 0
        let weighty = equal ? levels.count : weights.count { $0 >= heaviest / 2 }
        let weightyCheckins = equal ? kept.count : kept.count { $0.weight >= heaviest / 2 }
        return CellEstimate(
            levelDB: level, rangeDB: (level - halfWidth)...(level + halfWidth), scaleDB: scale,
            checkinCount: checkinCount, includedCheckinCount: kept.count, deviceCount: levels.count,
            confidence: Confidence.rate(checkins: weightyCheckins, devices: weighty, halfWidthDB: halfWidth),
            assessments: assessments)
    }

    /// `assess(_:context:)`: each check-in's z-score and whether it is an outlier, in input order.
    public func assess(_ checkins: [CellCheckin], context: CellContext? = nil) -> [CheckinAssessment] {
        let levels = checkins.map(\.levelDB)
        let zScores: [Double]
        var canReject = checkins.count >= minimumCheckinsForRejection
        if let context {
            let weighted = Self.weightedDeviceValues(checkins)
            let devices = weighted.map(\.value)
            var centreInputs = weighted.map { (value: $0.value, weight: $0.weight) }
            if let prior = context.priorDB, context.priorWeight > 0 {
                centreInputs.append((prior, context.priorWeight))
                canReject = true
            }
            var sigma = max(context.pooledScaleDB, scaleFloorDB)
            if devices.count >= ownScaleMinimumDevices, let own = HuberEstimator.pooledScale(devices) {
                sigma = max(sigma, own)
            }
            let centre = RobustStatistics.weightedMedian(centreInputs) ?? 0
            zScores = levels.map { ($0 - centre) / sigma }
        } else {
            zScores = modifiedZScores(levels)
        }
        return zip(checkins, zScores).map { checkin, z in
            CheckinAssessment(
                checkinID: checkin.checkinID, modifiedZ: z, isOutlier: canReject && abs(z) > outlierThreshold)
        }
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
        deviceMedians(checkins).map(\.value)
    }

    /// `deviceMedians(_:)`: ``deviceValues(_:)`` with each value's device.
    public static func deviceMedians(_ checkins: [CellCheckin]) -> [(device: String, value: Double)] {
        weightedDeviceValues(checkins).map { ($0.device, $0.value) }
    }

    /// `weightedDeviceValues(_:)`: one value per device, ordered by device id: the weighted median
    /// of its check-ins' levels (the median when they weigh alike), weighing what its heaviest
    /// check-in weighs. One device, one vote: ten check-ins of a phone share one bias.
    public static func weightedDeviceValues(_ checkins: [CellCheckin])
        -> [(device: String, value: Double, weight: Double)]
    {
        // Sorted by device, each device's run collapses to its median: one sort and no
        // dictionary of arrays (this runs for every cell at every judgement).
        let ordered = checkins.sorted { $0.deviceID < $1.deviceID }
        var values: [(device: String, value: Double, weight: Double)] = []
        values.reserveCapacity(ordered.count)
        var start = ordered.startIndex
        while start < ordered.endIndex {
            var end = start + 1
            while end < ordered.endIndex, ordered[end].deviceID == ordered[start].deviceID { end += 1 }
            let device = ordered[start].deviceID
            let run = ordered[start..<end]
            let heaviest = run.map(\.weight).max() ?? 0
            if end - start == 1 {
                values.append((device, ordered[start].levelDB, heaviest))
            } else if run.allSatisfy({ $0.weight == heaviest }) {
                if let median = RobustStatistics.median(run.map(\.levelDB)) {
                    values.append((device, median, heaviest))
                }
            } else if let median = RobustStatistics.weightedMedian(run.map { ($0.levelDB, $0.weight) }) {
                values.append((device, median, heaviest))
            }
            start = end
        }
        return values
    }
}
