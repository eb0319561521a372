/// Re-judges all the check-ins of one venue and estimates its cells (docs/ARCHITECTURE.md, "Judging a venue"). Pure.
///
/// 1. Each check-in is cleaned (``SessionCleaner``) and split into venue-local hours
///    (``HourStatistics``). It is *usable* when it has no outside exclusion reason (e.g.
///    `device_excluded`) and cleaning accepted it.
/// 2. Each usable piece with ≥ 10 valid seconds enters its cell with its Leq plus the device
///    model's offset.
/// 3. Every cell's check-ins are judged with ``CellEstimator/assess(_:context:)`` in the context of
///    the venue's pooled within-cell spread and its weekday + hour profile
///    (``CellContext/forVenue(_:floorDB:)``), so that a small cell's junk can be told from its good
///    check-ins. Then once more (one reweighting step), in the context fitted to what the first
///    judgement kept, since junk inflates the first pooled scale. A check-in rejected in any cell
///    is an `outlier` (`cell_outlier`) and leaves *every* cell (only check-ins crossing an hour
///    boundary have pieces in more than one).
/// 4. Every cell is then estimated once from the pieces left, with no further rejection, on the
///    within-cell scale pooled over those pieces only: a rejected check-in changes no cell's level
///    or range.
/// 5. Every empty cell of the week gets an estimate from the venue's weekday + hour pattern when
///    the kept pieces give a basis for one (``PatternEstimator``), else from venues of its
///    category nearby when they give one (``NeighbourEstimator``).
/// 6. Every measured cell with enough seconds of sound character (LCeq or bands) among its
///    counted pieces gets its ``CellCharacter``, pooled from those pieces' kept seconds.
/// 7. For device bias, each comparable piece gets a residual against its cell estimated from the
///    other devices' counted pieces only.
///
/// An admin's forced inclusion (``VenueCheckin/forcedInclusion``) makes a check-in usable whatever
/// its reasons and cleaning verdict, and exempts it from rejection: it stays among the kept pieces
/// its cells are estimated from, whatever its z-score.
/// Its status is `included` (reason `admin_included`) when a piece counts somewhere.
public struct VenueJudge: Sendable {
    /// Per-second cleaning.
    public var cleaner = SessionCleaner()
    /// Cross-check-in estimation of a cell.
    public var estimator = CellEstimator()
    /// Estimates for empty cells.
    public var patternEstimator = PatternEstimator()
    /// Estimates for the empty cells the pattern leaves, from neighbours.
    public var neighbourEstimator = NeighbourEstimator()
    /// The labels of windows of per-second sound character, applied when a check-in is cleaned.
    public var characterRules = SecondCharacterRules()

    /// `init()`: the defaults of docs/ARCHITECTURE.md, "Judging a venue".
    public init() {}

    private struct Piece {
        let checkinIndex: Int
        let hourIndex: Int
        let cell: CellCheckin
    }

    private struct Prepared {
        let cleaning: CleaningSummary
        var hours: [HourStatistics] { cleaning.hours }
        let usable: Bool
    }

    /// `judge(_:neighbours:)`: the judgement of every check-in (in input order) and the venue's
    /// cells. `neighbours`: the measured levels of venues of the same category nearby, nearest
    /// first, as ``NeighbourEstimator/estimates(measured:covered:neighbours:)`` takes them.
    public func judge(_ checkins: [VenueCheckin], neighbours: [[Double?]] = []) -> VenueJudgement {
        let prepared = checkins.map(prepare)
        var pieces: [LocalHour: [Piece]] = [:]
        for (checkinIndex, checkin) in checkins.enumerated() where prepared[checkinIndex].usable {
            for (hourIndex, hour) in prepared[checkinIndex].hours.enumerated() where hour.countsInCell {
                let cell = CellCheckin(
                    checkinID: checkin.id, deviceID: checkin.deviceID, levelDB: hour.leqDBFS + checkin.modelOffsetDB)
                pieces[hour.localHour, default: []].append(
                    Piece(checkinIndex: checkinIndex, hourIndex: hourIndex, cell: cell))
            }
        }

        let first = CellContext.forVenue(pieces.mapValues { $0.map(\.cell) }, floorDB: estimator.scaleFloorDB)
        let forced = Set(checkins.indices.filter { checkins[$0].forcedInclusion })
        let hourCounts = prepared.map(\.hours.count)
        var verdict = assess(pieces, contexts: first, forced: forced, hourCounts: hourCounts)
        if !first.isEmpty {
            // One reweighting step: junk inflates the first pooled scale, so judge every check-in
            // again in the context of what the first judgement kept.
            let kept = pieces.mapValues { $0.filter { !verdict.outliers.contains($0.checkinIndex) }.map(\.cell) }
            let second = CellContext.forVenue(kept, floorDB: estimator.scaleFloorDB)
            if !second.isEmpty {
                verdict = assess(pieces, contexts: second, forced: forced, hourCounts: hourCounts)
            }
        }
        let (outliers, zScores, flagged) = (verdict.outliers, verdict.zScores, verdict.flagged)

        let counted = pieces.mapValues { $0.filter { !outliers.contains($0.checkinIndex) } }
        let keptScale =
            first.isEmpty
            ? nil : PooledScale.withinCells(counted.keys.sorted().map { counted[$0]?.map(\.cell) ?? [] })
        var cells: [LocalHour: CellEstimate] = [:]
        for (hour, kept) in counted where !kept.isEmpty {
            // Judged already: estimated from what was kept, with no second outlier test.
            cells[hour] = estimator.estimate(
                kept: kept.map(\.cell), of: kept.count, pooledScaleDB: keptScale, assessments: [])
        }

        var characters: [LocalHour: CellCharacter] = [:]
        for (hour, kept) in counted where cells[hour] != nil {
            let pieces = kept.compactMap { piece in
                prepared[piece.checkinIndex].hours[piece.hourIndex].character.map {
                    (piece: $0, modelOffsetDB: checkins[piece.checkinIndex].modelOffsetDB)
                }
            }
            if let character = CellCharacter.pooled(pieces) { characters[hour] = character }
        }

        let residuals = residualsByPiece(checkins: checkins, prepared: prepared, counted: counted)
        let judgements = checkins.indices.map { index in
            judgement(
                of: checkins[index], prepared: prepared[index], index: index, isOutlier: outliers.contains(index),
                flaggedHours: flagged[index], zScores: zScores[index], residuals: residuals[index])
        }
        var estimates = patternEstimator.estimates(kept: counted.mapValues { $0.map(\.cell) }, measured: cells)
        if !neighbours.isEmpty {
            let nearby = neighbourEstimator.estimates(
                measured: cells, covered: Set(estimates.keys), neighbours: neighbours)
            estimates.merge(nearby) { pattern, _ in pattern }
        }
        return VenueJudgement(checkins: judgements, cells: cells, estimates: estimates, characters: characters)
    }

    /// Which check-ins the cell test rejects, and every piece's z-score and flag, by check-in
    /// and hour index (arrays, not dictionaries: this runs for every check-in at every judgement).
    private struct Verdict {
        var outliers: Set<Int> = []
        var zScores: [[Double?]]
        var flagged: [[Bool]]

        init(hourCounts: [Int]) {
            zScores = hourCounts.map { [Double?](repeating: nil, count: $0) }
            flagged = hourCounts.map { [Bool](repeating: false, count: $0) }
        }
    }

    /// The cell test of every cell in its context; check-ins in `forced` (an admin's forced
    /// inclusion) keep their z-scores but are never rejected.
    private func assess(
        _ pieces: [LocalHour: [Piece]], contexts: [LocalHour: CellContext], forced: Set<Int>, hourCounts: [Int]
    ) -> Verdict {
        var verdict = Verdict(hourCounts: hourCounts)
        for (hour, cellPieces) in pieces {
            let assessments = estimator.assess(cellPieces.map(\.cell), context: contexts[hour])
            for (piece, assessment) in zip(cellPieces, assessments) {
                verdict.zScores[piece.checkinIndex][piece.hourIndex] = assessment.modifiedZ
                if assessment.isOutlier, !forced.contains(piece.checkinIndex) {
                    verdict.outliers.insert(piece.checkinIndex)
                    verdict.flagged[piece.checkinIndex][piece.hourIndex] = true
                }
            }
        }
        return verdict
    }

    /// Cleans the check-in, unless it comes with the summary of an earlier cleaning.
    private func prepare(_ checkin: VenueCheckin) -> Prepared {
        let cleaning =
            checkin.summary
            ?? CleaningSummary(
                cleaning: checkin.samples, localHours: checkin.localHours, cleaner: cleaner, spectra: checkin.spectra,
                phoneClasses: checkin.phoneClasses, characterRules: characterRules)
        let usable = checkin.forcedInclusion || (checkin.exclusionReasons.isEmpty && cleaning.isAccepted)
        return Prepared(cleaning: cleaning, usable: usable)
    }

    /// Residual of every comparable piece (of usable or device-excluded check-ins, not those at
    /// another place; ≥ 10 valid seconds): its level minus the median of the *other* devices'
    /// values in its cell (each device's counted pieces collapsed to their median, as the cell
    /// estimator does). An exact leave-one-device-out median, O(k log k) a cell: a Huber fit per
    /// device and cell was O(k²) and took half the server's time on venues with a few hundred
    /// check-ins. The residual only feeds device bias (a median of residuals, flagged past 6 dB),
    /// for which the median reference is as robust.
    private func residualsByPiece(
        checkins: [VenueCheckin], prepared: [Prepared], counted: [LocalHour: [Piece]]
    ) -> [[(residual: Double, others: Int)?]] {
        var references: [LocalHour: LeaveOneOutMedians] = [:]
        for (hour, pieces) in counted {
            references[hour] = LeaveOneOutMedians(pieces.map(\.cell))
        }
        var result = prepared.map { [(residual: Double, others: Int)?](repeating: nil, count: $0.hours.count) }
        for (index, checkin) in checkins.enumerated() where isComparable(checkin, prepared[index]) {
            for (hourIndex, hour) in prepared[index].hours.enumerated() where hour.countsInCell {
                guard let reference = references[hour.localHour]?.without(device: checkin.deviceID) else { continue }
                let level = hour.leqDBFS + checkin.modelOffsetDB
                result[index][hourIndex] = (level - reference.median, reference.devices)
            }
        }
        return result
    }

    private func isComparable(_ checkin: VenueCheckin, _ prepared: Prepared) -> Bool {
        prepared.cleaning.isAccepted
            && checkin.exclusionReasons.allSatisfy { $0 == JudgementReason.deviceExcluded }
    }

    private func judgement(
        of checkin: VenueCheckin, prepared: Prepared, index: Int, isOutlier: Bool, flaggedHours: [Bool],
        zScores: [Double?], residuals: [(residual: Double, others: Int)?]
    ) -> CheckinJudgement {
        var reasons = checkin.forcedInclusion ? [] : checkin.exclusionReasons
        if !checkin.forcedInclusion, let exclusion = prepared.cleaning.exclusion {
            reasons.append(JudgementReason(exclusion))
        }
        let countsSomewhere = prepared.hours.contains(where: \.countsInCell)
        if reasons.isEmpty, !countsSomewhere { reasons.append(JudgementReason.tooFewSecondsPerHour) }
        let status: CheckinStatus
        if checkin.forcedInclusion {
            status = reasons.isEmpty ? .included : .excluded
            reasons.insert(JudgementReason.adminIncluded, at: 0)
        } else if !reasons.isEmpty {
            status = .excluded
        } else if isOutlier {
            status = .outlier
            reasons.append(JudgementReason.cellOutlier)
        } else {
            status = .included
        }
        let hours = prepared.hours.enumerated().map { hourIndex, statistics in
            HourJudgement(
                statistics: statistics, counted: status == .included && statistics.countsInCell,
                isOutlier: flaggedHours[hourIndex], modifiedZ: zScores[hourIndex],
                residualDB: residuals[hourIndex]?.residual, otherDeviceCount: residuals[hourIndex]?.others ?? 0)
        }
        return CheckinJudgement(
            checkinID: checkin.id, status: status, reasons: reasons, levelDBFS: prepared.cleaning.levelDBFS,
            validSeconds: prepared.cleaning.validSeconds, hours: hours, cleaning: prepared.cleaning)
    }
}

/// The median of a cell's device values with one device left out, for every device at once.
struct LeaveOneOutMedians {
    private let sorted: [Double]
    private let positionByDevice: [String: Int]

    init(_ cells: [CellCheckin]) {
        var values = CellEstimator.deviceMedians(cells)
        values.sort { $0.value < $1.value || ($0.value == $1.value && $0.device < $1.device) }
        sorted = values.map { $0.value }
        var positions: [String: Int] = [:]
        for (position, entry) in values.enumerated() { positions[entry.device] = position }
        positionByDevice = positions
    }

    /// The median of the values of every device but `device`, and how many there are; nil when
    /// no other device has a value.
    func without(device: String) -> (median: Double, devices: Int)? {
        let skipped = positionByDevice[device]
        let count = sorted.count - (skipped == nil ? 0 : 1)
        guard count > 0 else { return nil }
        func value(at reduced: Int) -> Double {
            guard let skipped else { return sorted[reduced] }
            return sorted[reduced < skipped ? reduced : reduced + 1]
        }
        let median =
            count % 2 == 1 ? value(at: count / 2) : (value(at: count / 2 - 1) + value(at: count / 2)) / 2
        return (median, count)
    }
}
