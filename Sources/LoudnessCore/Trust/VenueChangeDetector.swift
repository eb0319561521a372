import Foundation

/// Finds lasting shifts in a venue's level from its check-ins, counted in check-ins, not days
/// (docs/ARCHITECTURE.md, "Venues that change"). Pure; its state is the venue's changes, stored
/// by the judgement that found them and handed to the next.
///
/// **Detection.** At every judgement, the venue's usable check-ins (levels with the phones'
/// offsets, brought forward over the changes in force) since the last change are watched in a
/// block of its latest occasions (``window``); every check-in before the block is the baseline,
/// whose ``LevelReference`` (cell medians blended with the weekday + hour profile) each watched
/// check-in is measured against. Check-ins of one hour of one day share that evening's crowd, so
/// they are pooled into one *occasion*: the trust-weighted mean of their residuals; a residual
/// beyond ``skipScales`` robust SDs (and ``minimumSkipDB``) is junk and counts as none. The noise
/// an occasion's mean is standardised by is the baseline's own, measured out of sample (each fold
/// of its occasions against the reference of the others), so the reference's own error counts.
/// A two-sided ``CUSUM`` (allowance ``allowance``, decision interval ``decisionInterval``) runs
/// over the block's standardised occasions, clipped to ±``clip``; an alarm whose run holds at
/// least ``minimumAfter`` check-ins over ``minimumOccasionsAfter`` occasions, most of them beyond
/// the allowance, is a change dated to the run's first occasion. A change is raised once, at the
/// judgement that first sees it; when it was raised (`detectedAt`) is that judgement's latest
/// check-in.
///
/// **Shift.** For a change, every check-in since is measured against the check-ins before it
/// (``LevelReference``); each hour's nearby residuals (±2 hours, weights 1, ½, ¼ by distance)
/// decide whether it moved by about the change's shift or stayed (nearer which, and at least
/// ``minimumShiftDB``); an hour with too little nearby since follows the change. So a DJ after
/// 22:00 moves only those hours. An alarm with no changed hour is no change; a change whose
/// check-ins since show none, once ``withdrawAfter`` of them, is withdrawn (a false alarm corrects
/// itself). An admin's dismissal, or a withdrawal, ends the period a later alarm may start in.
///
/// **After.** Check-ins before a change are brought forward: their level moves by their hour's
/// shift and they weigh ``broughtForwardWeight`` as much (the old level says less of the new). The
/// judge builds cells from all of them; a changed hour's cell with no check-in since is an estimate
/// (basis `after_change`).
public struct VenueChangeDetector: Sendable {
    /// Fewest usable check-ins before the watched ones: the baseline they are measured against.
    public var minimumCheckins = 60
    /// Most occasions the CUSUM watches: the block it watches holds window/2 to window of the
    /// latest occasions since the last change, and moves on by window/2.
    public var window = 40
    /// Fewest check-ins in an alarm's run.
    public var minimumAfter = 3
    /// Fewest occasions in an alarm's run: one evening's crowd is no change.
    public var minimumOccasionsAfter = 2
    /// The CUSUM's allowance `k`, SDs of an occasion's mean residual: about half the smallest
    /// shift worth finding quickly.
    public var allowance = 0.75
    /// The CUSUM's decision interval `h`.
    public var decisionInterval = 6.0
    /// Standardised residuals are clipped to ±this before the CUSUM: what junk the skip leaves
    /// moves the sums at most so much.
    public var clip = 1.5
    /// Residuals farther than this many robust SDs are junk and count as none.
    public static let skipScales = 3.5
    /// The nearest a residual may be to count as junk, dB: a change of 6 dB must count in full in
    /// a quiet venue's residuals.
    public static let minimumSkipDB = 10.0
    /// Smallest shift of an hour that counts as a change, dB.
    public var minimumShiftDB = 1.5
    /// What a check-in made before a change weighs, relative to one since.
    public var broughtForwardWeight = 0.5
    /// Check-ins since a change before it may be withdrawn for showing no shift.
    public var withdrawAfter = 20
    /// An occasion: check-ins starting in the same hour (UTC) at the venue.
    public static let occasionSeconds = 3_600.0

    public init() {}

    /// One usable hour piece of a check-in (cleaning accepted, no outside reason, ≥ 10 valid
    /// seconds), in time order of its check-in.
    public struct Piece: Sendable, Equatable {
        /// Index of its check-in in the venue's input.
        public var checkin: Int
        /// Its check-in's start, seconds since 1970.
        public var time: Double
        public var cell: LocalHour
        /// Model-corrected level, dB.
        public var levelDB: Double
        public var device: String
        /// Its device's trust relative to the venue's, 0…1.
        public var weight: Double

        public init(checkin: Int, time: Double, cell: LocalHour, levelDB: Double, device: String, weight: Double) {
            self.checkin = checkin
            self.time = time
            self.cell = cell
            self.levelDB = levelDB
            self.device = device
            self.weight = weight
        }

        var occasion: Int64 { Int64((time / VenueChangeDetector.occasionSeconds).rounded(.down)) }
    }

    /// The venue's history as the judge should read it.
    public struct Regime: Sendable, Equatable {
        /// Every change known or found, oldest first, with its status (``VenueChange/Status``).
        public var changes: [VenueChange]
        /// Per piece (input order): the level to use (brought forward over the changes since)…
        public var levelsDB: [Double]
        /// …and the factor its weight is multiplied by (``broughtForwardWeight`` per change since).
        public var weightFactors: [Double]
        /// The residuals of the evidence of the change in force (or of the latest check-ins when
        /// none), when asked for.
        public var evidence: [ChangeResidual]

        /// The latest change in force.
        public var inForce: VenueChange? { changes.last { $0.status == .inForce } }
    }

    /// `assess(_:known:evidence:)`: the regime of a venue from its usable pieces (time order)
    /// and the changes earlier judgements stored.
    public func assess(_ pieces: [Piece], known: [KnownVenueChange] = [], evidence wantsEvidence: Bool = false)
        -> Regime
    {
        var levels = pieces.map(\.levelDB)
        var factors = [Double](repeating: 1, count: pieces.count)
        var changes: [VenueChange] = []
        let active = known.filter { $0.status == .inForce }.sorted { $0.changedAt < $1.changedAt }
        for (index, change) in active.enumerated() {
            let next = index + 1 < active.count ? active[index + 1].changedAt : .infinity
            var found = VenueChange(
                changedAt: change.changedAt, detectedAt: change.detectedAt,
                shiftsDB: [Double](repeating: 0, count: 24), shiftDB: change.shiftDB, checkinsSince: 0)
            apply(&found, until: next, pieces: pieces, levels: &levels, factors: &factors)
            changes.append(found)
        }
        for change in known where change.status != .inForce {
            changes.append(
                VenueChange(
                    changedAt: change.changedAt, detectedAt: change.detectedAt,
                    shiftsDB: [Double](repeating: 0, count: 24), shiftDB: change.shiftDB, checkinsSince: 0,
                    status: change.status))
        }
        // A later change starts after the one in force, and after any the admin dismissed or the
        // data withdrew: what they rested on is not evidence again.
        let start = max(
            changes.last { $0.status == .inForce }?.changedAt ?? -.infinity,
            known.filter { $0.status != .inForce }.map(\.detectedAt).max() ?? -.infinity)
        // What an admin dismissed is an episode, not the venue: its check-ins until the watch
        // starts are no baseline, and a run like it (same way, within half its shift) is none.
        let dismissed = known.filter { $0.status == .dismissed && $0.detectedAt <= start }
        if let split = detect(
            pieces, levels: levels, from: start, excluding: dismissed.map { $0.changedAt..<$0.detectedAt },
            unlike: dismissed.map(\.shiftDB))
        {
            var change = VenueChange(
                changedAt: split.changedAt, detectedAt: pieces.map(\.time).max() ?? split.changedAt,
                shiftsDB: [Double](repeating: 0, count: 24), shiftDB: split.shiftDB, checkinsSince: 0, isNew: true)
            apply(&change, until: .infinity, pieces: pieces, levels: &levels, factors: &factors)
            if change.status == .inForce, change.changedHours.count > 0 { changes.append(change) }
        }
        changes.sort { $0.changedAt < $1.changedAt }
        var regime = Regime(changes: changes, levelsDB: levels, weightFactors: factors, evidence: [])
        if wantsEvidence { regime.evidence = evidence(pieces, regime: regime) }
        return regime
    }

    /// Measures `change`'s shifts from its check-ins until `next` against those before it, and
    /// brings the earlier ones forward; withdraws it when its check-ins since show no shift.
    private func apply(
        _ change: inout VenueChange, until next: Double, pieces: [Piece], levels: inout [Double],
        factors: inout [Double]
    ) {
        let pre = pieces.indices.filter { pieces[$0].time < change.changedAt }
        let post = pieces.indices.filter { pieces[$0].time >= change.changedAt && pieces[$0].time < next }
        change.checkinsSince = Set(post.map { pieces[$0].checkin }).count
        guard let shift = shift(pieces, levels: levels, pre: pre, post: post, target: change.shiftDB) else { return }
        if !shift.material {
            if change.checkinsSince >= withdrawAfter || change.isNew { change.status = .withdrawn }
            return
        }
        change.shiftsDB = shift.byHour
        change.shiftDB = shift.venueWide
        for index in pre where shift.byHour[pieces[index].cell.hour] != 0 {
            levels[index] += shift.byHour[pieces[index].cell.hour]
            factors[index] *= broughtForwardWeight
        }
    }

    // MARK: - Detection

    /// The change since `start`, when the CUSUM finds one: where its run starts and its shift.
    ///
    /// The latest ``window`` occasions since `start` are *watched*; every check-in before them is
    /// the *baseline* (at least ``minimumCheckins``). Each watched occasion's mean residual against
    /// the baseline's ``LevelReference`` is standardised by the baseline's own noise, measured
    /// out of sample (``crossFittedNoise(_:pieces:levels:)``: the reference of every other day
    /// predicts the rest, so its own error counts as noise), clipped to ±``clip`` and fed to a
    /// two-sided ``CUSUM`` with the allowance ``allowance`` and decision interval
    /// ``decisionInterval``, each occasion weighing its check-ins' trust (at most 1). An alarm
    /// with at least ``minimumAfter`` check-ins and ``minimumOccasionsAfter`` occasions in its run
    /// is a change dated to the run's first occasion; its shift is the run's mean residual.
    ///
    /// `excluding`: spans whose check-ins are left out of the baseline; `unlike`: shifts an alarm's
    /// run must not resemble (same sign, within half of one) to count.
    func detect(
        _ pieces: [Piece], levels: [Double], from start: Double, excluding: [Range<Double>] = [],
        unlike: [Double] = []
    ) -> (changedAt: Double, shiftDB: Double)? {
        let order = Self.checkinOrder(Array(pieces.indices), pieces)
        guard order.count > minimumCheckins else { return nil }
        // Where each occasion starts in `order`.
        var bounds: [Int] = []
        for index in order.indices
        where index == 0 || pieces[order[index][0]].occasion != pieces[order[index - 1][0]].occasion {
            bounds.append(index)
        }
        let sinceStart = bounds.firstIndex { pieces[order[$0][0]].time >= start } ?? bounds.count
        let enoughBefore = bounds.firstIndex { $0 >= minimumCheckins } ?? bounds.count
        // The watched block starts at a multiple of half the window from the first occasion it
        // may: the baseline stays put for window/2 judgements' occasions, so the CUSUM of one
        // judgement is the last one's carried on, not a fresh look at the same check-ins.
        let eligible = max(sinceStart, enoughBefore)
        guard eligible < bounds.count else { return nil }
        let step = max(window / 2, 1)
        let first = eligible + max(0, (bounds.count - eligible - step) / step * step)
        let baseline = order[..<bounds[first]].filter { members in
            !excluding.contains { $0.contains(pieces[members[0]].time) }
        }
        let baselinePieces = baseline.flatMap { $0 }
        guard let noise = Self.crossFittedNoise(baseline, pieces: pieces, levels: levels),
            let reference = LevelReference(
                baselinePieces.map { pieces[$0] }, levels: baselinePieces.map { levels[$0] },
                weights: baselinePieces.map { pieces[$0].weight })
        else { return nil }
        let watched = Self.occasions(
            Array(order[bounds[first]...]), pieces: pieces, levels: levels, reference: reference.level, noise: noise
        ).list
        var cusum = CUSUM(k: allowance, h: decisionInterval)
        for (index, occasion) in watched.enumerated() {
            let z = min(max(occasion.meanDB / occasion.varianceDB2.squareRoot(), -clip), clip)
            guard let alarm = cusum.update(z, weight: occasion.weight, index: index) else { continue }
            let run = watched[alarm.start...index]
            guard run.count >= minimumOccasionsAfter, run.reduce(0, { $0 + $1.checkins }) >= minimumAfter else {
                continue
            }
            // Most of the run must lie beyond the allowance: a few junk readings clipped at the
            // top make a sum, not a change.
            let sign = alarm.direction == .up ? 1.0 : -1.0
            let typical = RobustStatistics.median(run.map { sign * $0.meanDB / $0.varianceDB2.squareRoot() }) ?? 0
            guard typical >= allowance else { continue }

            var sum = 0.0
            var precision = 0.0
            for member in run {
                sum += member.meanDB * member.precision
                precision += member.precision
            }
            let shift = sum / precision
            if unlike.contains(where: { $0 * shift > 0 && abs(shift - $0) < abs($0) / 2 }) { continue }
            return (watched[alarm.start].start, shift)
        }
        return nil
    }

    /// A venue's occasions in time order, and the residuals' noise (nil with fewer than 10).
    struct Occasions {
        struct Occasion {
            /// Its first check-in's start, seconds since 1970.
            var start: Double
            /// The trust-weighted mean residual of its check-ins, dB.
            var meanDB: Double
            /// The variance of that mean (``OccasionNoise/occasionVariance(checkins:)``), dB².
            var varianceDB2: Double
            /// Its check-ins' trust, at most 1.
            var weight: Double
            var checkins: Int

            var precision: Double { weight / varianceDB2 }
        }

        var list: [Occasion]
        var noise: OccasionNoise?
    }

    /// The occasions of check-ins `order` (time order) with their residuals against `reference`;
    /// residuals beyond the noise's ``OccasionNoise/skipDB`` are junk and count as none. The noise
    /// is `given`, or measured on these residuals.
    static func occasions(
        _ order: [[Int]], pieces: [Piece], levels: [Double], reference: (LocalHour) -> Double?,
        noise given: OccasionNoise? = nil
    ) -> Occasions {
        var residuals: [(value: Double, occasion: Int64, time: Double, device: String, weight: Double)] = []
        for members in order {
            guard let value = residual(members, levels: levels, pieces: pieces, reference: reference) else { continue }
            let piece = pieces[members[0]]
            residuals.append((value, piece.occasion, piece.time, piece.device, piece.weight))
        }
        guard let noise = given ?? OccasionNoise(residuals.map { ($0.value, $0.occasion, $0.device) }) else {
            return Occasions(list: [], noise: nil)
        }
        var list: [Occasions.Occasion] = []
        var index = 0
        while index < residuals.count {
            var end = index
            var sum = 0.0
            var weight = 0.0
            while end < residuals.count, residuals[end].occasion == residuals[index].occasion {
                if abs(residuals[end].value) <= noise.skipDB {
                    sum += residuals[end].weight * residuals[end].value
                    weight += residuals[end].weight
                }
                end += 1
            }
            if weight > 0 {
                list.append(
                    Occasions.Occasion(
                        start: residuals[index].time, meanDB: sum / weight,
                        varianceDB2: noise.occasionVariance(checkins: weight), weight: min(weight, 1),
                        checkins: end - index))
            }
            index = end
        }
        return Occasions(list: list, noise: noise)
    }

    /// Folds of the baseline's occasions for ``crossFittedNoise(_:pieces:levels:)``.
    static let noiseFolds = 4

    /// The noise of check-ins about a reference they are not part of: the baseline's occasions
    /// dealt into ``noiseFolds`` folds (by a hash of the occasion, so each cell's evenings fall in
    /// several), each fold's residuals against the ``LevelReference`` of the others. A reference of
    /// ¾ of the baseline errs a little more than the whole one, so this overstates the noise a
    /// little: the CUSUM errs towards calm.
    static func crossFittedNoise(_ baseline: [[Int]], pieces: [Piece], levels: [Double]) -> OccasionNoise? {
        func fold(_ occasion: Int64) -> Int {
            // Fibonacci hashing: the product's top bits.
            let hash = (UInt64(bitPattern: occasion) &* 0x9E37_79B9_7F4A_7C15) >> 32
            return Int((hash * UInt64(noiseFolds)) >> 32)
        }
        var folds = [[[Int]]](repeating: [], count: noiseFolds)
        for members in baseline { folds[fold(pieces[members[0]].occasion)].append(members) }
        var residuals: [(value: Double, occasion: Int64, device: String)] = []
        for held in folds.indices {
            let others = folds.indices.filter { $0 != held }.flatMap { folds[$0].flatMap { $0 } }
            guard
                let reference = LevelReference(
                    others.map { pieces[$0] }, levels: others.map { levels[$0] },
                    weights: others.map { pieces[$0].weight })
            else { return nil }
            for members in folds[held] {
                guard let value = residual(members, levels: levels, pieces: pieces, reference: reference.level)
                else { continue }
                residuals.append((value, pieces[members[0]].occasion, pieces[members[0]].device))
            }
        }
        residuals.sort { $0.occasion < $1.occasion }
        return OccasionNoise(residuals)
    }

    /// A check-in's mean residual over its pieces with a reference level.
    static func residual(_ members: [Int], levels: [Double], pieces: [Piece], reference: (LocalHour) -> Double?)
        -> Double?
    {
        var sum = 0.0
        var count = 0.0
        for index in members {
            guard let level = reference(pieces[index].cell) else { continue }
            sum += levels[index] - level
            count += 1
        }
        return count > 0 ? sum / count : nil
    }

    /// The pieces' indices grouped by check-in, in time order.
    static func checkinOrder(_ indices: [Int], _ pieces: [Piece]) -> [[Int]] {
        var groups: [[Int]] = []
        var position: [Int: Int] = [:]
        for index in indices {
            if let at = position[pieces[index].checkin] {
                groups[at].append(index)
            } else {
                position[pieces[index].checkin] = groups.count
                groups.append([index])
            }
        }
        return groups.sorted { pieces[$0[0]].time < pieces[$1[0]].time }
    }

    // MARK: - Shift

    struct Shift {
        var byHour: [Double]
        var venueWide: Double
        var material: Bool
    }

    /// The shift of `post` against `pre` (see the type's documentation): each hour's nearby
    /// residuals decide whether it moved by about `target` (the alarm's run) or stayed; an hour
    /// without nearby residuals since follows `target`. nil when `pre` is too short for a
    /// reference or `post` has under 2 check-ins' weight.
    func shift(_ pieces: [Piece], levels: [Double], pre: [Int], post: [Int], target: Double) -> Shift? {
        guard !post.isEmpty,
            let reference = LevelReference(
                pre.map { pieces[$0] }, levels: pre.map { levels[$0] }, weights: pre.map { pieces[$0].weight })
        else { return nil }
        var residuals: [(hour: Int, value: Double, weight: Double)] = []
        for index in post {
            guard let level = reference.level(pieces[index].cell) else { continue }
            residuals.append((pieces[index].cell.hour, levels[index] - level, pieces[index].weight))
        }
        let total = residuals.reduce(0) { $0 + $1.weight }
        guard total >= 2, let venueWide = RobustStatistics.weightedMedian(residuals.map { ($0.value, $0.weight) })
        else { return nil }
        var byHour = [Double](repeating: 0, count: 24)
        for hour in Set(pieces.map(\.cell.hour)) {
            // The hour's own check-ins since when they weigh enough, else the nearest hours' too.
            var near: [(value: Double, weight: Double)] = []
            for reach in 0...2 where near.reduce(0, { $0 + $1.weight }) < 1.5 {
                near = residuals.compactMap { residual -> (value: Double, weight: Double)? in
                    let distance = min(abs(residual.hour - hour), 24 - abs(residual.hour - hour))
                    guard distance <= reach else { return nil }
                    return (residual.value, residual.weight / Double(1 << distance))
                }
            }
            guard near.reduce(0, { $0 + $1.weight }) >= 1.5,
                let median = RobustStatistics.weightedMedian(near)
            else {
                byHour[hour] = abs(target) >= minimumShiftDB ? target : 0
                continue
            }
            // Nearer the run's shift than no shift, and large enough to matter.
            if abs(median - target) < abs(median), abs(median) >= minimumShiftDB { byHour[hour] = median }
        }
        return Shift(byHour: byHour, venueWide: venueWide, material: byHour.contains { $0 != 0 })
    }

    // MARK: - Evidence

    /// How many of the latest check-ins the evidence shows when no change is in force.
    static let evidenceWithoutChange = 60

    /// Each check-in's residual against the venue before the change in force (or, without one,
    /// before its latest check-ins), for the admin's chart.
    func evidence(_ pieces: [Piece], regime: Regime) -> [ChangeResidual] {
        let order = Self.checkinOrder(Array(pieces.indices), pieces)
        let boundary: Double
        if let change = regime.inForce {
            boundary = change.changedAt
        } else {
            guard let first = order.suffix(Self.evidenceWithoutChange).first else { return [] }
            boundary = pieces[first[0]].time
        }
        let pre = pieces.indices.filter { pieces[$0].time < boundary }
        // The raw levels: the chart shows the shift itself.
        let levels = pieces.map(\.levelDB)
        guard
            let reference = LevelReference(
                pre.map { pieces[$0] }, levels: pre.map { levels[$0] }, weights: pre.map { pieces[$0].weight })
        else { return [] }
        return order.compactMap { members in
            guard let residual = Self.residual(members, levels: levels, pieces: pieces, reference: reference.level)
            else { return nil }
            let piece = pieces[members[0]]
            return ChangeResidual(
                time: piece.time, residualDB: residual, weight: piece.weight, after: piece.time >= boundary)
        }
    }
}

/// How far a venue's check-ins stray from its cells (docs/ARCHITECTURE.md, "Venues that change"):
/// `scale`, 1.4826 × the median |residual|; `within`, the spread of check-ins of one occasion (the
/// same hour of the same day, different devices) about each other, from the median of their
/// differences (`median|rₐ − r_b| / (0.6745·√2)`), which the evening's crowd does not enter. An
/// occasion's mean of `m` check-ins has the variance `(scale² − within²) + within²/m`. Medians, so
/// junk barely moves them.
struct OccasionNoise {
    var scaleDB: Double
    var withinDB: Double
    /// Residuals farther than this are junk and count as none, dB.
    var skipDB: Double {
        max(VenueChangeDetector.skipScales * scaleDB, VenueChangeDetector.minimumSkipDB)
    }

    /// From check-ins' residuals with their occasions and devices; nil with fewer than 10.
    init?(_ residuals: [(value: Double, occasion: Int64, device: String)]) {
        guard residuals.count >= 10, let median = RobustStatistics.median(residuals.map { abs($0.value) }) else {
            return nil
        }
        let scale = max(RobustStatistics.madToSigma * median, 1)
        var differences: [Double] = []
        var index = 0
        while index < residuals.count {
            var end = index
            while end < residuals.count, residuals[end].occasion == residuals[index].occasion { end += 1 }
            for a in index..<end {
                for b in (a + 1)..<end where residuals[a].device != residuals[b].device {
                    differences.append(abs(residuals[a].value - residuals[b].value))
                }
            }
            index = end
        }
        var within = scale / 2.squareRoot()
        if differences.count >= 10, let median = RobustStatistics.median(differences) {
            within = median / (0.6745 * 2.squareRoot())
        }
        scaleDB = scale
        withinDB = min(max(within, 0.5), scale)
    }

    /// The variance of the mean residual of an occasion of `checkins` (weight), dB²: what its
    /// check-ins share is at least half what each has of its own, for evenings differ (a fit's own
    /// residuals understate it, and a crowded evening must not count as many independent ones).
    func occasionVariance(checkins: Double) -> Double {
        let within = withinDB * withinDB
        return max(scaleDB * scaleDB - within, within / 2) + within / max(checkins, 1)
    }
}
