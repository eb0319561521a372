import Foundation

/// Finds lasting shifts in a venue's level from its check-ins, counted in check-ins, not days
/// (docs/ARCHITECTURE.md, "Venues that change"). Pure; its state is the venue's changes, stored
/// by the judgement that found them and handed to the next.
///
/// **Detection.** At every judgement, the venue's usable check-ins (levels with the phones'
/// offsets, brought forward over the changes in force) are measured against the weekday + hour
/// profile all of them give (``VenueProfile``: medians, so a few check-ins since a change barely
/// move it, where a cell's own median would follow them). Check-ins of one hour of one day share that evening's crowd, so they are pooled into
/// one *occasion*: the trust-weighted mean of their residuals; a residual beyond ``skipScales``
/// robust SDs (and ``minimumSkipDB``) is junk and counts as none. For every split among the latest ``window`` occasions
/// since the last change, the occasions after it are compared with all before it:
/// `T = (mean after − mean before) / √(var after + var before)`, each mean weighted by its
/// occasions' precision `1/(σ_shared² + σ_within²/m)` (σ_within from check-ins of one occasion,
/// σ_shared the rest of the residuals' variance). The split with the largest |T| is a change when
/// |T| ≥ ``threshold`` with at least ``minimumAfter`` check-ins after it. A change is raised once, at the judgement that first sees it; when it was
/// raised (`detectedAt`) is that judgement's latest check-in.
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
    /// Fewest usable check-ins before a venue is watched for changes.
    public var minimumCheckins = 60
    /// Occasions since the last change among which a split is looked for.
    public var window = 40
    /// Fewest check-ins after a split.
    public var minimumAfter = 3
    /// Fewest occasions after a split: one evening's crowd is no change.
    public var minimumOccasionsAfter = 3
    /// |T| of a split against all check-ins' profile worth confirming.
    public var screeningThreshold = 3.0
    /// |T| of the check-ins since a split, against those before it alone, that makes it a change.
    public var threshold = 9.0
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
        if let split = detect(pieces, levels: levels, from: start) {
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

    /// The change since `start`, when the split test finds one: where it starts and its shift.
    /// Screening: against the profile of *all* check-ins, the split with the largest |T| among the
    /// latest occasions, when it reaches ``screeningThreshold`` (the fit follows a change in part:
    /// a weak filter). Confirmation: the check-ins since the split against the profile
    /// of those before it alone, with the noise measured about that profile, when their |T|
    /// reaches ``threshold``.
    func detect(_ pieces: [Piece], levels: [Double], from start: Double) -> (changedAt: Double, shiftDB: Double)? {
        let order = Self.checkinOrder(Array(pieces.indices), pieces)
        guard order.count >= minimumCheckins,
            let profile = VenueProfile.fit(pieces.indices.map { (pieces[$0].cell, levels[$0]) }),
            let screened = bestSplit(
                Self.occasions(order, pieces: pieces, levels: levels, reference: profile.fitted), from: start),
            abs(screened.z) >= screeningThreshold
        else { return nil }
        let before = order.filter { pieces[$0[0]].time < screened.changedAt }
        let since = order.filter { pieces[$0[0]].time >= screened.changedAt }
        let beforePieces = before.flatMap { $0 }
        // The profile of the check-ins before: the noise about it (non-additive weeks included) is
        // measured on them, and the check-ins since are measured against it alike.
        guard let earlier = VenueProfile.fit(beforePieces.map { (pieces[$0].cell, levels[$0]) }),
            let noise = Self.occasions(before, pieces: pieces, levels: levels, reference: earlier.fitted).noise
        else { return nil }
        let after = Self.occasions(since, pieces: pieces, levels: levels, reference: earlier.prediction, noise: noise)
        var sum = 0.0
        var precision = 0.0
        for occasion in after.list {
            sum += occasion.sum
            precision += occasion.precision
        }
        guard precision > 0, after.list.count >= minimumOccasionsAfter else { return nil }
        let shift = sum / precision
        return abs(shift * precision.squareRoot()) >= threshold ? (screened.changedAt, shift) : nil
    }

    /// A venue's occasions in time order: each one's start, precision-weighted mean residual
    /// (`sum` = mean × precision), precision `min(trust, 1) / variance` and check-ins; and the
    /// residuals' noise (nil with fewer than 10).
    struct Occasions {
        var list: [(start: Double, sum: Double, precision: Double, checkins: Int)]
        var noise: OccasionNoise?
    }

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
        var list: [(start: Double, sum: Double, precision: Double, checkins: Int)] = []
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
                let precision = min(weight, 1) / noise.occasionVariance(checkins: weight)
                list.append((residuals[index].time, sum / weight * precision, precision, end - index))
            }
            index = end
        }
        return Occasions(list: list, noise: noise)
    }

    /// Among the latest ``window`` occasions since `start`, the split whose occasions after it
    /// differ most from all before it: `T = (mean after − mean before) / √(var after + var before)`.
    func bestSplit(_ occasions: Occasions, from start: Double) -> (changedAt: Double, z: Double)? {
        let list = occasions.list
        let first = list.firstIndex { $0.start >= start } ?? list.count
        let lowest = max(first, list.count - window, 1)
        guard lowest < list.count else { return nil }
        let candidates = lowest..<list.count
        var after = (sum: 0.0, precision: 0.0, checkins: 0)
        var before = list.reduce((sum: 0.0, precision: 0.0)) { ($0.sum + $1.sum, $0.precision + $1.precision) }
        var best: (changedAt: Double, z: Double)?
        for position in candidates.reversed() {
            after.sum += list[position].sum
            after.precision += list[position].precision
            after.checkins += list[position].checkins
            before.sum -= list[position].sum
            before.precision -= list[position].precision
            guard after.checkins >= minimumAfter, before.precision > 0 else { continue }
            let shift = after.sum / after.precision - before.sum / before.precision
            let z = shift / (1 / after.precision + 1 / before.precision).squareRoot()
            if abs(z) > abs(best?.z ?? 0) { best = (list[position].start, z) }
        }
        return best
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
