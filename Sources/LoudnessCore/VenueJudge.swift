/// Re-judges all the check-ins of one venue and estimates its cells (DESIGN §4). Pure.
///
/// 1. Each check-in is cleaned (``SessionCleaner``) and split into venue-local hours
///    (``HourStatistics``). It is *usable* when it has no outside exclusion reason (e.g.
///    `device_excluded`) and cleaning accepted it.
/// 2. Each usable piece with ≥ 10 valid seconds enters its cell with its Leq plus the device
///    model's offset.
/// 3. Every cell is estimated with ``CellEstimator``; a check-in rejected in any cell is an
///    `outlier` (`cell_outlier`) and leaves *every* cell: cells that held one of its other pieces are
///    estimated again without it (no further rejection, since their own check-ins were already
///    judged against the full cell). Only check-ins crossing an hour boundary can cause that.
/// 4. For device bias, each comparable piece gets a residual against its cell estimated from the
///    other devices' counted pieces only.
///
/// An admin's forced inclusion (``VenueCheckin/forcedInclusion``) makes a check-in usable whatever
/// its reasons and cleaning verdict, and exempts it from rejection: a cell where the estimator
/// would have rejected it is estimated again, without rejection, from its other kept pieces and it.
/// Its status is `included` (reason `admin_included`) when a piece counts somewhere.
public struct VenueJudge: Sendable {
    /// Per-second cleaning.
    public var cleaner = SessionCleaner()
    /// Cross-check-in estimation of a cell.
    public var estimator = CellEstimator()

    /// `init()`: DESIGN §4 defaults.
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

    /// `judge(_:)`: the judgement of every check-in (in input order) and the venue's cells.
    public func judge(_ checkins: [VenueCheckin]) -> VenueJudgement {
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

        var firstPass: [LocalHour: CellEstimate] = [:]
        var outliers: Set<Int> = []
        var zScores: [Int: [Int: Double]] = [:]
        var flagged: [Int: Set<Int>] = [:]
        var overruled: Set<LocalHour> = []
        for (hour, cellPieces) in pieces {
            guard let estimate = estimator.estimate(cellPieces.map(\.cell)) else { continue }
            firstPass[hour] = estimate
            for (piece, assessment) in zip(cellPieces, estimate.assessments) {
                zScores[piece.checkinIndex, default: [:]][piece.hourIndex] = assessment.modifiedZ
                if assessment.isOutlier, checkins[piece.checkinIndex].forcedInclusion {
                    overruled.insert(hour)
                } else if assessment.isOutlier {
                    outliers.insert(piece.checkinIndex)
                    flagged[piece.checkinIndex, default: []].insert(piece.hourIndex)
                }
            }
        }

        var settled = estimator
        settled.minimumCheckinsForRejection = .max
        var cells: [LocalHour: CellEstimate] = [:]
        var counted: [LocalHour: [Piece]] = [:]
        for (hour, cellPieces) in pieces {
            let kept = cellPieces.filter { !outliers.contains($0.checkinIndex) }
            counted[hour] = kept
            let holdsCrossHourOutlier = cellPieces.contains {
                outliers.contains($0.checkinIndex) && !isFlagged($0, in: flagged)
            }
            if !holdsCrossHourOutlier, !overruled.contains(hour) {
                cells[hour] = firstPass[hour]
            } else if !kept.isEmpty {
                cells[hour] = settled.estimate(kept.map(\.cell))
            }
        }

        let residuals = residualsByPiece(checkins: checkins, prepared: prepared, counted: counted)
        let judgements = checkins.indices.map { index in
            judgement(
                of: checkins[index], prepared: prepared[index], index: index, isOutlier: outliers.contains(index),
                flaggedHours: flagged[index] ?? [], zScores: zScores[index] ?? [:],
                residuals: residuals[index] ?? [:])
        }
        return VenueJudgement(checkins: judgements, cells: cells)
    }

    private func isFlagged(_ piece: Piece, in flagged: [Int: Set<Int>]) -> Bool {
        flagged[piece.checkinIndex]?.contains(piece.hourIndex) ?? false
    }

    /// Cleans the check-in, unless it comes with the summary of an earlier cleaning.
    private func prepare(_ checkin: VenueCheckin) -> Prepared {
        let cleaning =
            checkin.summary
            ?? CleaningSummary(cleaning: checkin.samples, localHours: checkin.localHours, cleaner: cleaner)
        let usable = checkin.forcedInclusion || (checkin.exclusionReasons.isEmpty && cleaning.isAccepted)
        return Prepared(cleaning: cleaning, usable: usable)
    }

    /// Residual of every comparable piece: usable or device-excluded check-ins (not those at
    /// another place), ≥ 10 valid seconds, against the cell of the other devices' counted pieces.
    private func residualsByPiece(
        checkins: [VenueCheckin], prepared: [Prepared], counted: [LocalHour: [Piece]]
    ) -> [Int: [Int: (residual: Double, others: Int)]] {
        var settled = estimator
        settled.minimumCheckinsForRejection = .max
        var result: [Int: [Int: (residual: Double, others: Int)]] = [:]
        var cache: [String: CellEstimate?] = [:]
        for (index, checkin) in checkins.enumerated() where isComparable(checkin, prepared[index]) {
            for (hourIndex, hour) in prepared[index].hours.enumerated() where hour.countsInCell {
                let others = (counted[hour.localHour] ?? []).filter { $0.cell.deviceID != checkin.deviceID }
                guard !others.isEmpty else { continue }
                let key = "\(hour.localHour.weekday)-\(hour.localHour.hour)-\(checkin.deviceID)"
                let estimate = cache[key] ?? settled.estimate(others.map(\.cell))
                cache[key] = estimate
                guard let estimate else { continue }
                let level = hour.leqDBFS + checkin.modelOffsetDB
                result[index, default: [:]][hourIndex] = (level - estimate.levelDB, estimate.deviceCount)
            }
        }
        return result
    }

    private func isComparable(_ checkin: VenueCheckin, _ prepared: Prepared) -> Bool {
        prepared.cleaning.isAccepted
            && checkin.exclusionReasons.allSatisfy { $0 == JudgementReason.deviceExcluded }
    }

    private func judgement(
        of checkin: VenueCheckin, prepared: Prepared, index: Int, isOutlier: Bool, flaggedHours: Set<Int>,
        zScores: [Int: Double], residuals: [Int: (residual: Double, others: Int)]
    ) -> CheckinJudgement {
        var reasons = checkin.forcedInclusion ? [] : checkin.exclusionReasons
        if !checkin.forcedInclusion, let exclusion = prepared.cleaning.exclusion { reasons.append(exclusion.rawValue) }
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
                isOutlier: flaggedHours.contains(hourIndex), modifiedZ: zScores[hourIndex],
                residualDB: residuals[hourIndex]?.residual, otherDeviceCount: residuals[hourIndex]?.others ?? 0)
        }
        return CheckinJudgement(
            checkinID: checkin.id, status: status, reasons: reasons, levelDBFS: prepared.cleaning.levelDBFS,
            validSeconds: prepared.cleaning.validSeconds, hours: hours, cleaning: prepared.cleaning)
    }
}
