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

    /// Finds lasting changes of the venue's level (docs/ARCHITECTURE.md, "Venues that change").
    public var changeDetector = VenueChangeDetector()
    /// How much older check-ins count (docs/ARCHITECTURE.md, "What a check-in weighs").
    public var recency = RecencyWeight()
    /// Whether devices weigh by their trust (``DeviceStanding/trust``), relative to the venue's.
    public var weighsTrust = true
    /// Whether changes are looked for (off: the venue is judged as one period, as before them).
    public var detectsChanges = true
    /// Flags coordinated campaigns (docs/ARCHITECTURE.md, "Campaigns"); nil: none is looked for.
    public var campaignDetector: CampaignDetector? = CampaignDetector()
    /// Whether an open campaign's check-ins are held out of the cells (docs/ARCHITECTURE.md,
    /// "Campaigns"): they count again once an admin dismisses it.
    public var quarantinesCampaigns = true

    /// `init()`: the defaults of docs/ARCHITECTURE.md, "Judging a venue".
    public init() {}

    /// The judge of the first design: every check-in weighs alike, whatever its device, age or
    /// the venue's changes (`--judgement plain`; the simulator's "today's method").
    public static var plain: VenueJudge {
        var judge = VenueJudge()
        judge.recency = RecencyWeight(halfLifeDays: nil)
        judge.weighsTrust = false
        judge.detectsChanges = false
        judge.campaignDetector = nil
        return judge
    }

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

    /// `judge(_:neighbours:changes:evidence:)`: the judgement of every check-in (in input order)
    /// and the venue's cells. `neighbours`: the measured levels of venues of the same category
    /// nearby, nearest first, as ``NeighbourEstimator/estimates(measured:covered:neighbours:)``
    /// takes them. `changes`: the venue's changes earlier judgements stored, and the admin's
    /// dismissals; `evidence`: whether to keep the residuals of the change in force (the admin's
    /// chart).
    public func judge(
        _ checkins: [VenueCheckin], neighbours: [[Double?]] = [], changes known: [KnownVenueChange] = [],
        evidence: Bool = false, ignoringCampaignDevices: Set<String> = []
    ) -> VenueJudgement {
        let prepared = checkins.map(prepare)
        let weighed = weighing(checkins, prepared: prepared, known: known, evidence: evidence)
        var pieces = cellPieces(checkins, prepared: prepared, weighed: weighed)
        // An open campaign's check-ins are held out of everything that follows, the outlier test's
        // context included (fakes 12 dB quiet make a pocket's junk look usual), until an admin
        // dismisses it; what they move is measured at the end.
        var found = detectCampaign(pieces, checkins: checkins, ignoring: ignoringCampaignDevices)
        var held: [LocalHour: [Piece]] = [:]
        if let campaign = found, quarantinesCampaigns { held = Self.hold(campaign, from: &pieces) }
        let (first, verdict) = judged(pieces, checkins: checkins, prepared: prepared)
        let (outliers, zScores, flagged) = (verdict.outliers, verdict.zScores, verdict.flagged)

        let counted = pieces.mapValues { $0.filter { !outliers.contains($0.checkinIndex) } }
        let keptScale =
            first.isEmpty
            ? nil : PooledScale.withinCells(counted.keys.sorted().map { counted[$0]?.map(\.cell) ?? [] })
        var cells = measuredCells(counted, keptScale: keptScale, judged: !first.isEmpty, weights: weighed.weights)
        if var campaign = found {
            measure(&campaign, held: held, counted: counted, keptScale: keptScale)
            found = campaign
        }
        let characters = pooledCharacters(counted, cells: cells, checkins: checkins, prepared: prepared)

        let residuals = residualsByPiece(checkins: checkins, prepared: prepared, counted: counted)
        let judgements = checkins.indices.map { index in
            judgement(
                of: checkins[index], prepared: prepared[index], index: index, isOutlier: outliers.contains(index),
                flaggedHours: flagged[index], zScores: zScores[index], residuals: residuals[index])
        }
        let unmeasuredSince = afterChange(counted, checkins: checkins, regime: weighed.regime, cells: &cells)
        var estimates = patternEstimator.estimates(kept: counted.mapValues { $0.map(\.cell) }, measured: cells)
        estimates.merge(unmeasuredSince) { _, since in since }
        if !neighbours.isEmpty {
            let nearby = neighbourEstimator.estimates(
                measured: cells, covered: Set(estimates.keys), neighbours: neighbours)
            estimates.merge(nearby) { pattern, _ in pattern }
        }
        var venue = VenueJudgement(
            checkins: judgements, cells: cells, estimates: estimates, characters: characters)
        venue.campaign = found
        venue.changes = weighed.regime?.changes ?? []
        venue.changeEvidence = weighed.regime?.evidence ?? []
        venue.weights = Self.weights(weighed)
        return venue
    }

    /// Every usable check-in's hours that count in a cell, by cell: each at its level (model
    /// offset and change shift applied) and weight (trust × recency × change factor).
    private func cellPieces(
        _ checkins: [VenueCheckin], prepared: [Prepared], weighed: Weighing
    ) -> [LocalHour: [Piece]] {
        var pieces: [LocalHour: [Piece]] = [:]
        for (checkinIndex, checkin) in checkins.enumerated() where prepared[checkinIndex].usable {
            let weight = weighed.weights[checkinIndex]
            for (hourIndex, hour) in prepared[checkinIndex].hours.enumerated() where hour.countsInCell {
                let level = hour.leqDBFS + checkin.modelOffsetDB + (weighed.shifts[checkinIndex][hour.localHour] ?? 0)
                let factor = weighed.factors[checkinIndex][hour.localHour] ?? 1
                let cell = CellCheckin(
                    checkinID: checkin.id, deviceID: checkin.deviceID, levelDB: level,
                    weight: weight.trust * weight.recency * factor)
                pieces[hour.localHour, default: []].append(
                    Piece(checkinIndex: checkinIndex, hourIndex: hourIndex, cell: cell))
            }
        }
        return pieces
    }

    /// Takes `campaign`'s check-ins out of `pieces`; what was taken, by cell.
    private static func hold(_ campaign: Campaign, from pieces: inout [LocalHour: [Piece]]) -> [LocalHour: [Piece]] {
        var held: [LocalHour: [Piece]] = [:]
        let members = Set(campaign.checkins)
        for (hour, cellPieces) in pieces where cellPieces.contains(where: { members.contains($0.cell.checkinID) }) {
            held[hour] = cellPieces.filter { members.contains($0.cell.checkinID) }
            let rest = cellPieces.filter { !members.contains($0.cell.checkinID) }
            pieces[hour] = rest.isEmpty ? nil : rest
        }
        return held
    }

    /// The cell test of every piece in the venue's context, then once more in the context of what
    /// the first test kept; the first contexts (empty: nothing to judge) and the verdict.
    private func judged(
        _ pieces: [LocalHour: [Piece]], checkins: [VenueCheckin], prepared: [Prepared]
    ) -> (first: [LocalHour: CellContext], verdict: Verdict) {
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
        return (first, verdict)
    }

    /// The cells measured from what the test kept (`judged`: the venue had pieces to judge).
    private func measuredCells(
        _ counted: [LocalHour: [Piece]], keptScale: Double?, judged: Bool, weights: [CheckinWeight]
    ) -> [LocalHour: CellEstimate] {
        var cells: [LocalHour: CellEstimate] = [:]
        // Where every device of a cell is little trusted (fresh ids), the venue's profile weighs
        // in for the trust missing.
        let trusted = counted.mapValues { kept in kept.map { weights[$0.checkinIndex].trust }.max() ?? 1 }
        let contexts =
            !judged || trusted.values.allSatisfy({ $0 >= 1 })
            ? [:] : CellContext.forVenue(counted.mapValues { $0.map(\.cell) }, floorDB: estimator.scaleFloorDB)
        func estimate(_ hour: LocalHour, _ kept: [Piece]) -> CellEstimate? {
            // Judged already: estimated from what was kept, with no second outlier test.
            let prior = contexts[hour].flatMap { context in
                context.priorDB.map { ($0, context.priorWeight * (1 - (trusted[hour] ?? 1))) }
            }
            return estimator.estimate(
                kept: kept.map(\.cell), of: kept.count, pooledScaleDB: keptScale, assessments: [], prior: prior)
        }
        for (hour, kept) in counted where !kept.isEmpty { cells[hour] = estimate(hour, kept) }
        return cells
    }

    /// Each measured cell's sound character, pooled from the kept pieces that have one.
    private func pooledCharacters(
        _ counted: [LocalHour: [Piece]], cells: [LocalHour: CellEstimate], checkins: [VenueCheckin],
        prepared: [Prepared]
    ) -> [LocalHour: CellCharacter] {
        var characters: [LocalHour: CellCharacter] = [:]
        for (hour, kept) in counted where cells[hour] != nil {
            let pieces = kept.compactMap { piece in
                prepared[piece.checkinIndex].hours[piece.hourIndex].character.map {
                    (piece: $0, modelOffsetDB: checkins[piece.checkinIndex].modelOffsetDB)
                }
            }
            if let character = CellCharacter.pooled(pieces) { characters[hour] = character }
        }
        return characters
    }

    /// What each check-in weighed, with its change factor (its smallest) and its first hour's shift.
    private static func weights(_ weighed: Weighing) -> [CheckinWeight] {
        weighed.weights.indices.map { index in
            var weight = weighed.weights[index]
            let factors = weighed.factors[index].values
            weight.change = factors.min() ?? 1
            // Its first hour's shift (a check-in rarely spans hours that moved differently).
            weight.shiftDB =
                weighed.shifts[index].sorted { $0.key.cellIndex < $1.key.cellIndex }.first { $0.value != 0 }?.value ?? 0
            return weight
        }
    }

    /// The venue's campaign, if any (``CampaignDetector``), among all its usable pieces, measured
    /// against the venue's established phones (``campaignReference(_:checkins:)``).
    private func detectCampaign(_ pieces: [LocalHour: [Piece]], checkins: [VenueCheckin], ignoring: Set<String>)
        -> Campaign?
    {
        guard let campaignDetector else { return nil }
        let all = pieces.flatMap { hour, cellPieces in
            cellPieces.map { piece in
                CampaignDetector.Piece(
                    checkin: piece.cell.checkinID, device: piece.cell.deviceID,
                    time: checkins[piece.checkinIndex].startedAt, cell: hour, levelDB: piece.cell.levelDB,
                    standing: checkins[piece.checkinIndex].device)
            }
        }
        // Only a venue with a device that could be a suspect, and an established phone to tell
        // it by, is looked at: where every phone is new (a city's first weeks), a campaign and a
        // crowd cannot be told apart.
        guard all.contains(where: { !$0.standing.established && !$0.standing.checksInElsewhere }),
            all.contains(where: \.standing.established)
        else { return nil }
        return campaignDetector.campaign(all, cells: campaignReference(pieces, checkins: checkins), ignoring: ignoring)
    }

    /// How far a campaign's check-ins (`held` out of the cells, or still in `counted` when
    /// campaigns are not held out) move the cells they are in with the weights their devices have,
    /// and would if each weighed as an established phone.
    private func measure(
        _ found: inout Campaign, held: [LocalHour: [Piece]], counted: [LocalHour: [Piece]], keptScale: Double?
    ) {
        let members = Set(found.checkins)
        func level(_ pieces: [CellCheckin]) -> Double? {
            estimator.estimate(kept: pieces, of: pieces.count, pooledScaleDB: keptScale, assessments: [])?.levelDB
        }
        for hour in Set(held.keys).union(counted.keys) {
            let inCell = (counted[hour] ?? []).map(\.cell)
            let own = (held[hour] ?? []).map(\.cell) + inCell.filter { members.contains($0.checkinID) }
            guard !own.isEmpty else { continue }
            let rest = inCell.filter { !members.contains($0.checkinID) }
            guard let base = level(rest) else { continue }
            let asWeighed = level(rest + own) ?? base
            let asTrusted =
                level(
                    rest
                        + own.map {
                            CellCheckin(checkinID: $0.checkinID, deviceID: $0.deviceID, levelDB: $0.levelDB, weight: 1)
                        }) ?? base
            found.movesDB = max(found.movesDB, abs(asWeighed - base))
            found.wouldMoveDB = max(found.wouldMoveDB, abs(asTrusted - base))
        }
    }

    /// The levels a campaign is measured against, at each cell with pieces: the cell from its
    /// established devices' pieces alone, else the profile of the venue's established devices,
    /// else all its pieces as weighed (robustly: ``CellEstimator``). (A cell's pieces as weighed
    /// follow fakes where they are most of it, and a fake there would look honest.)
    private func campaignReference(_ pieces: [LocalHour: [Piece]], checkins: [VenueCheckin]) -> [LocalHour: Double] {
        func level(_ kept: [Piece]) -> Double? {
            estimator.estimate(kept: kept.map(\.cell), of: kept.count, pooledScaleDB: nil, assessments: [])?.levelDB
        }
        let established = pieces.mapValues { kept in kept.filter { checkins[$0.checkinIndex].device.established } }
            .filter { !$0.value.isEmpty }
        let profile = VenueProfile.fit(established.flatMap { hour, kept in kept.map { (hour, $0.cell.levelDB) } })
        var reference: [LocalHour: Double] = [:]
        for (hour, cellPieces) in pieces {
            reference[hour] = established[hour].flatMap(level) ?? profile?.prediction(for: hour) ?? level(cellPieces)
        }
        return reference
    }

    /// Each check-in's weight (trust and recency), and per check-in and hour the shift and weight
    /// factor of the venue's changes since (``VenueChangeDetector``).
    private struct Weighing {
        var weights: [CheckinWeight]
        var shifts: [[LocalHour: Double]]
        var factors: [[LocalHour: Double]]
        var regime: VenueChangeDetector.Regime?
    }

    private func weighing(
        _ checkins: [VenueCheckin], prepared: [Prepared], known: [KnownVenueChange], evidence: Bool
    ) -> Weighing {
        let usable = checkins.indices.filter { prepared[$0].usable }
        let trusts = relativeTrust(checkins, usable: usable)
        let latest = usable.compactMap { checkins[$0].startedAt }.max()
        let weights = checkins.indices.map { index in
            var age = 0.0
            if let latest, let start = checkins[index].startedAt { age = latest - start }
            return CheckinWeight(trust: trusts[index], recency: recency.weight(ageSeconds: age))
        }
        var result = Weighing(
            weights: weights, shifts: checkins.map { _ in [:] }, factors: checkins.map { _ in [:] }, regime: nil)
        guard detectsChanges else { return result }
        var detectorPieces: [VenueChangeDetector.Piece] = []
        var hourOf: [(checkin: Int, hour: LocalHour)] = []
        for index in usable.sorted(by: { (checkins[$0].startedAt ?? 0, $0) < (checkins[$1].startedAt ?? 0, $1) }) {
            guard let time = checkins[index].startedAt else { continue }
            for hour in prepared[index].hours where hour.countsInCell {
                detectorPieces.append(
                    VenueChangeDetector.Piece(
                        checkin: index, time: time, cell: hour.localHour,
                        levelDB: hour.leqDBFS + checkins[index].modelOffsetDB, device: checkins[index].deviceID,
                        weight: trusts[index]))
                hourOf.append((index, hour.localHour))
            }
        }
        let regime = changeDetector.assess(detectorPieces, known: known, evidence: evidence)
        for (position, piece) in detectorPieces.enumerated() where regime.weightFactors[position] != 1 {
            result.shifts[hourOf[position].checkin][hourOf[position].hour] = regime.levelsDB[position] - piece.levelDB
            result.factors[hourOf[position].checkin][hourOf[position].hour] = regime.weightFactors[position]
        }
        result.regime = regime
        return result
    }

    /// Each check-in's device trust over the venue's reference trust (the 90th percentile of its
    /// usable devices' trust, at least ``DeviceTrust/floor``), at most 1; 1 when trust is not
    /// weighed.
    private func relativeTrust(_ checkins: [VenueCheckin], usable: [Int]) -> [Double] {
        guard weighsTrust else { return checkins.map { _ in 1 } }
        var byDevice: [String: Double] = [:]
        for index in usable { byDevice[checkins[index].deviceID] = checkins[index].device.trust }
        let reference = max(
            RobustStatistics.percentile(Array(byDevice.values), 90) ?? 1, DeviceTrust.floor)
        return checkins.map { min(1, max($0.device.trust, DeviceTrust.floor) / reference) }
    }

    /// Moves the cells of the hours the change in force moved that hold no check-in since it out
    /// of the measured cells, as estimates (basis `after_change`): the old cell, brought forward.
    private func afterChange(
        _ counted: [LocalHour: [Piece]], checkins: [VenueCheckin], regime: VenueChangeDetector.Regime?,
        cells: inout [LocalHour: CellEstimate]
    ) -> [LocalHour: PatternEstimate] {
        guard let change = regime?.inForce else { return [:] }
        let minimumScale = PatternEstimator.minimumScaleDB(measured: cells)
        var estimates: [LocalHour: PatternEstimate] = [:]
        for (hour, kept) in counted where change.shiftsDB[hour.hour] != 0 {
            let since = kept.contains { (checkins[$0.checkinIndex].startedAt ?? .infinity) >= change.changedAt }
            guard !since, let cell = cells[hour] else { continue }
            let measuredError = (cell.rangeDB.upperBound - cell.rangeDB.lowerBound) / (2 * 1.96)
            // The shift's own error: about a robust scale over the check-ins since, at least 1 dB.
            let shiftError = max(1, 1.2533 * cell.scaleDB / Double(max(change.checkinsSince, 1)).squareRoot())
            let scale = (measuredError * measuredError + shiftError * shiftError).squareRoot()
            estimates[hour] = PatternEstimate(
                levelDB: cell.levelDB, scaleDB: max(scale, minimumScale), basis: .afterChange)
            cells[hour] = nil
        }
        return estimates
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
