import Foundation
import LoudnessCore

/// The sections of `simulate --evaluate` for the trust scenarios (venues that change, phones that
/// drift, fakes, newcomers), all against the truth *now*, each printed only when the truth file
/// has its scenario. Beside the server: an oracle told which check-ins are junk or fake and every
/// phone's offset at the time, and "today's method" (`--reference-url`) when given; with
/// `--compare-url`, the same city served without the scenario.
struct TrustEvaluation {
    typealias Evaluated = (key: String, checkins: [SimulationTruth.Checkin], trueDB: Double)

    let truth: SimulationTruth
    /// Cells with ≥ 3 check-ins, as the main table scores them.
    let evaluated: [Evaluated]
    let label: (Double) -> String
    let server: SimulationEvaluation.ServedGrids
    let reference: SimulationEvaluation.ServedGrids?
    let compare: (grids: SimulationEvaluation.ServedGrids, endpoint: String, truth: SimulationTruth?)?
    let statuses: [String: String]
    let databaseFigures: [DatabaseFigures.Section: [String]]?

    /// A method's answers by cell key (measured and estimated alike) and its constant.
    struct Method {
        var name: String
        var answers: [String: Double]
        /// Its mean signed error over the steady cells (the crowd cannot know the absolute level).
        var constant: Double
    }

    private var scenarios: SimulationScenarios { truth.scenarios ?? SimulationScenarios() }
    private var changes: [String: SimulationTruth.VenueChange] { truth.changes }
    private var targets: Set<String> { Set((scenarios.fakeTargets ?? []) + (scenarios.slowBurnTargets ?? [])) }

    private func venue(of key: String) -> String { String(key.prefix { $0 != "|" }) }
    private func hour(of key: String) -> Int { Int(key.split(separator: "|").last ?? "") ?? -1 }

    /// Every true cell now, by key.
    private var trueLevels: [String: Double] {
        Dictionary(
            uniqueKeysWithValues: truth.venues.flatMap { venue in
                venue.cells.map { ("\(venue.venue.id)|\($0.weekday)|\($0.hour)", $0.trueDB) }
            })
    }

    /// The evaluated cells of venues neither changed nor attacked: where a method's constant is taken.
    private var steadyKeys: [String] {
        evaluated.map(\.key).filter { changes[venue(of: $0)] == nil && !targets.contains(venue(of: $0)) }
    }

    func lines() -> [String] {
        let byCell = Dictionary(grouping: truth.checkins) { "\($0.venue)|\($0.weekday)|\($0.hour)" }
        let trueLevels = self.trueLevels
        var oracleAnswers: [String: Double] = [:]
        for (key, checkins) in byCell {
            oracleAnswers[key] = oracle(key: key, checkins: checkins)
        }
        let steady = steadyKeys
        func method(_ name: String, _ answers: [String: Double]) -> Method {
            let errors = steady.compactMap { key in answers[key].flatMap { a in trueLevels[key].map { a - $0 } } }
            return Method(
                name: name, answers: answers,
                constant: errors.isEmpty ? 0 : errors.reduce(0, +) / Double(errors.count))
        }
        var methods = [
            method("server", server.measured.merging(server.estimated.mapValues(\.level)) { measured, _ in measured }),
            method("oracle told junk, fakes, offsets", oracleAnswers),
        ]
        if let reference {
            methods.append(
                method(
                    "today's method",
                    reference.measured.merging(reference.estimated.mapValues(\.level)) { measured, _ in measured }))
        }
        var lines = [
            "trust scenarios: \(truth.scenarios?.summary ?? "none in this truth file")",
            "scores against the truth now, each method's constant removed (its mean error over the "
                + "\(steady.count) evaluated cells of venues neither changed nor attacked):",
        ]
        let evaluatedKeys = evaluated.map(\.key)
        for method in methods {
            let (mae, bias, count) = score(method, keys: evaluatedKeys, trueLevels: trueLevels)
            lines.append(
                "  " + method.name.padding(toLength: 34, withPad: " ", startingAt: 0)
                    + String(
                        format: "city MAE %.2f dB, mean error %+.2f (%d cells; constant %+.2f dB)", mae, bias, count,
                        method.constant))
        }
        if truth.scenarios != nil {
            if scenarios.changesVenues { lines += changedVenues(methods, byCell: byCell, trueLevels: trueLevels) }
            if scenarios.stepsModel { lines += modelStep(methods, byCell: byCell, trueLevels: trueLevels) }
            if scenarios.stepsDevices { lines += deviceSteps(methods, byCell: byCell, trueLevels: trueLevels) }
            if scenarios.ages { lines += ageing() }
            if scenarios.fakes {
                lines += attacks(
                    methods, kind: .freshDevice, venues: scenarios.fakeTargets ?? [], byCell: byCell,
                    trueLevels: trueLevels)
            }
            if scenarios.slowBurns {
                lines += attacks(
                    methods, kind: .slowBurn, venues: scenarios.slowBurnTargets ?? [], byCell: byCell,
                    trueLevels: trueLevels)
            }
            if scenarios.addsNewcomers { lines += newcomers() }
        }
        if let compare { lines += compared(with: compare, trueLevels: trueLevels) }
        return lines
    }

    // MARK: - The oracle

    /// The oracle told everything: the median of the cell's clean, non-fake check-ins, each
    /// corrected by its phone's true offset at the time; for a changed venue's moved cell, only
    /// the check-ins since the change (or, with none, the ones before plus the change).
    func oracle(key: String, checkins: [SimulationTruth.Checkin]) -> Double? {
        let bias = Dictionary(truth.devices.map { ($0.id, $0.biasDB) }, uniquingKeysWith: { first, _ in first })
        let honest = checkins.filter { $0.contamination == nil && $0.fake == nil }
        func corrected(_ chosen: [SimulationTruth.Checkin]) -> Double? {
            RobustStatistics.median(chosen.map { $0.leqDBFS - ($0.phoneOffsetDB ?? bias[$0.device] ?? 0) })
                .map { $0 + truth.referenceOffsetDB }
        }
        guard let change = changes[venue(of: key)], change.applies(hour: hour(of: key)) else {
            return corrected(honest)
        }
        let since = honest.filter { ($0.start ?? .distantPast) >= change.at }
        if !since.isEmpty { return corrected(since) }
        return corrected(honest).map { $0 + change.db }
    }

    // MARK: - Scores

    /// MAE and mean signed error of `method` (its constant removed) over the cells of `keys` it
    /// answers, and how many.
    private func score(_ method: Method, keys: [String], trueLevels: [String: Double]) -> (Double, Double, Int) {
        var errors: [Double] = []
        for key in keys {
            guard let answer = method.answers[key], let trueDB = trueLevels[key] else { continue }
            errors.append(answer - method.constant - trueDB)
        }
        guard !errors.isEmpty else { return (.nan, .nan, 0) }
        return (
            errors.map(abs).reduce(0, +) / Double(errors.count), errors.reduce(0, +) / Double(errors.count),
            errors.count
        )
    }

    /// One line per method over `keys`: MAE and mean error, constant removed.
    private func rows(_ methods: [Method], title: String, keys: [String], trueLevels: [String: Double]) -> [String] {
        var lines = ["  \(title) (\(keys.count) cells):"]
        for method in methods {
            let (mae, bias, count) = score(method, keys: keys, trueLevels: trueLevels)
            lines.append(
                "    " + method.name.padding(toLength: 34, withPad: " ", startingAt: 0)
                    + (count == 0
                        ? "no answer"
                        : String(format: "MAE %.2f dB, mean error %+.2f (%d answered)", mae, bias, count)))
        }
        return lines
    }

    private func rejected(_ checkins: [SimulationTruth.Checkin]) -> String {
        guard !checkins.isEmpty else { return "-" }
        let count = checkins.count { ["outlier", "excluded"].contains(statuses[$0.id] ?? "") }
        return String(format: "%.1f %%", 100 * Double(count) / Double(checkins.count))
    }

    private func figures(_ section: DatabaseFigures.Section, _ what: String) -> [String] {
        let lines = databaseFigures?[section] ?? [DatabaseFigures.placeholder]
        return ["  \(what):"] + lines.map { "    " + $0 }
    }

    // MARK: - Sections

    private func changedVenues(
        _ methods: [Method], byCell: [String: [SimulationTruth.Checkin]], trueLevels: [String: Double]
    ) -> [String] {
        let changed = changes
        let detected = changed.keys.filter { server.changedAt[$0] != nil }
        let falseAlarms = server.changedAt.keys.filter { changed[$0] == nil }
        var lines = [
            "venues that changed: \(changed.count) of \(truth.venues.count)"
                + String(
                    format: " (%+.1f dB from %@, hours %@)", scenarios.changeDB,
                    scenarios.changeAt.map { ISO8601DateFormatter().string(from: $0) } ?? "?",
                    SimulationScenarios.describe(hours: scenarios.changeHours)),
            "  served changedAt: \(detected.count) of \(changed.count) changed venues, "
                + "\(falseAlarms.count) of \(truth.venues.count - changed.count) others",
        ]
        let delays = detected.compactMap { id in
            server.changedAt[id].flatMap { at in changed[id].map { at.timeIntervalSince($0.at) / 3600 } }
        }
        if !delays.isEmpty {
            lines.append(
                String(
                    format: "  changedAt minus the true change: median %+.1f h, max %+.1f h",
                    RobustStatistics.median(delays) ?? .nan, delays.max() ?? .nan))
        }
        var since: [String] = []
        var without: [String] = []
        var unaffected: [String] = []
        for venue in truth.venues {
            guard let change = venue.change else { continue }
            for cell in venue.cells {
                let key = "\(venue.venue.id)|\(cell.weekday)|\(cell.hour)"
                guard server.level(key) != nil || methods.dropFirst().contains(where: { $0.answers[key] != nil })
                else { continue }
                if !change.applies(hour: cell.hour) {
                    unaffected.append(key)
                } else if (byCell[key] ?? []).contains(where: { ($0.start ?? .distantPast) >= change.at }) {
                    since.append(key)
                } else {
                    without.append(key)
                }
            }
        }
        let measuredBefore = without.count { server.measured[$0] != nil }
        let afterChange = without.count { server.estimated[$0]?.basis == "after_change" }
        let otherEstimates = without.count { server.measured[$0] == nil && server.estimated[$0] != nil } - afterChange
        lines += rows(
            methods, title: "moved cells with a check-in since the change", keys: since, trueLevels: trueLevels)
        lines += rows(
            methods,
            title:
                "moved cells without one (server: \(measuredBefore) measured before, \(afterChange) after_change "
                + "estimates, \(otherEstimates) other estimates)", keys: without, trueLevels: trueLevels)
        if scenarios.changeHours != nil {
            lines += rows(
                methods, title: "the changed venues' unaffected hours", keys: unaffected, trueLevels: trueLevels)
        }
        lines += figures(.change, "when the server detected each change")
        return lines
    }

    private func modelStep(
        _ methods: [Method], byCell: [String: [SimulationTruth.Checkin]], trueLevels: [String: Double]
    ) -> [String] {
        guard let model = scenarios.modelStepModel, let at = scenarios.modelStepAt else { return [] }
        let ofModel = Set(truth.devices.filter { $0.model == model }.map(\.id))
        let mine = truth.checkins.filter { ofModel.contains($0.device) && $0.contamination == nil && $0.fake == nil }
        let after = mine.filter { ($0.start ?? .distantPast) >= at }
        let before = mine.filter { ($0.start ?? .distantPast) < at }
        let keys = Set(after.map { "\($0.venue)|\($0.weekday)|\($0.hour)" }).filter { trueLevels[$0] != nil }.sorted()
        var lines = [
            String(
                format: "model step: %@ %+.1f dB from %@ (OS %@ → %@%@)", model, scenarios.modelStepDB,
                ISO8601DateFormatter().string(from: at), scenarios.modelStepOSBefore?.version ?? "?",
                scenarios.modelStepOSAfter?.version ?? "?", scenarios.modelStepHideOS ? ", not told" : ", told"),
            "  its clean check-ins since the step: \(after.count), rejected \(rejected(after)) "
                + "(before it: \(before.count), rejected \(rejected(before)))",
        ]
        lines += rows(methods, title: "cells with its check-ins since the step", keys: keys, trueLevels: trueLevels)
        lines += figures(.modelStep, "when the server saw the step, and the model's offsets")
        return lines
    }

    private func deviceSteps(
        _ methods: [Method], byCell: [String: [SimulationTruth.Checkin]], trueLevels: [String: Double]
    ) -> [String] {
        let stepped = Dictionary(
            truth.devices.compactMap { device in device.stepAt.map { (device.id, $0) } },
            uniquingKeysWith: { first, _ in first })
        let theirs = truth.checkins.filter { stepped[$0.device] != nil && $0.contamination == nil }
        let after = theirs.filter { ($0.start ?? .distantPast) >= stepped[$0.device]! }
        let before = theirs.filter { ($0.start ?? .distantPast) < stepped[$0.device]! }
        let keys = Set(after.map { "\($0.venue)|\($0.weekday)|\($0.hour)" }).filter { trueLevels[$0] != nil }.sorted()
        var lines = [
            String(format: "phones that step: %d (%+.1f dB)", stepped.count, scenarios.deviceStepDB),
            "  their clean check-ins since the step: \(after.count), rejected \(rejected(after)) "
                + "(before it: \(before.count), rejected \(rejected(before)))",
        ]
        lines += rows(methods, title: "cells with their check-ins since the step", keys: keys, trueLevels: trueLevels)
        lines += figures(.devices, "which devices the server flagged or down-weighted")
        return lines
    }

    private func ageing() -> [String] {
        let now = truth.generatedAt ?? Date()
        let drifts = truth.devices.compactMap { device in
            device.startDate.map { scenarios.ageingDBPerYear * now.timeIntervalSince($0) / (365.25 * 86_400) }
        }
        guard !drifts.isEmpty else { return [] }
        return [
            String(
                format: "ageing %+.2f dB a year: the phones' drift now %+.2f … %+.2f dB (mean %+.2f); "
                    + "the city's scores above", scenarios.ageingDBPerYear, drifts.min() ?? .nan, drifts.max() ?? .nan,
                drifts.reduce(0, +) / Double(drifts.count))
        ]
    }

    private func attacks(
        _ methods: [Method], kind: SimulationTruth.Fake, venues: [String],
        byCell: [String: [SimulationTruth.Checkin]], trueLevels: [String: Double]
    ) -> [String] {
        let targets = Set(venues)
        let fakes = truth.checkins.filter { $0.fake == kind }
        let fakeDevices = Set(fakes.map(\.device))
        let honestThere = truth.checkins.filter {
            targets.contains($0.venue) && $0.fake == nil && $0.contamination == nil
        }
        let attacked = Set(fakes.map { "\($0.venue)|\($0.weekday)|\($0.hour)" }).filter { trueLevels[$0] != nil }
            .sorted()
        let targetCells = trueLevels.keys.filter { targets.contains(venue(of: $0)) }.sorted()
        let otherCells = evaluated.map(\.key).filter { !targets.contains(venue(of: $0)) }
        let title = kind == .freshDevice ? "fake check-ins from fresh device ids" : "slow burn"
        var lines = [
            String(
                format: "%@: %d target venue(s), %d fake check-ins from %d devices (%+.1f dB); rejected %@ "
                    + "(the targets' clean honest check-ins: %@)", title, targets.count, fakes.count,
                fakeDevices.count, scenarios.fakeDB, rejected(fakes), rejected(honestThere))
        ]
        if kind == .slowBurn {
            let honest = truth.checkins.filter { fakeDevices.contains($0.device) && $0.fake == nil }
            lines.append(
                "  the slow-burn devices' honest check-ins before: \(honest.count), rejected \(rejected(honest))")
        }
        lines += rows(methods, title: "the targets' cells with a fake check-in", keys: attacked, trueLevels: trueLevels)
        lines += rows(methods, title: "all the targets' cells served", keys: targetCells, trueLevels: trueLevels)
        lines += rows(methods, title: "the other venues' evaluated cells", keys: otherCells, trueLevels: trueLevels)
        lines += figures(.devices, "which devices the server flagged or down-weighted")
        if kind == .freshDevice { lines += figures(.newcomers, "the weights of fresh devices' check-ins") }
        return lines
    }

    private func newcomers() -> [String] {
        let newcomers = Set(truth.devices.filter { $0.role == .newcomer }.map(\.id))
        let theirs = truth.checkins.filter { newcomers.contains($0.device) }
        let clean = theirs.filter { $0.contamination == nil }
        let cityClean = truth.checkins.filter {
            !newcomers.contains($0.device) && $0.contamination == nil && $0.fake == nil
        }
        var lines = [
            "honest newcomers: \(newcomers.count) devices, \(theirs.count) check-ins; their clean ones rejected "
                + "\(rejected(clean)) (the city's other clean ones: \(rejected(cityClean)))"
        ]
        lines += figures(.newcomers, "the weights the server gives them")
        return lines
    }

    private func compared(
        with compare: (grids: SimulationEvaluation.ServedGrids, endpoint: String, truth: SimulationTruth?),
        trueLevels: [String: Double]
    ) -> [String] {
        var lines = ["against the same city without the scenario (\(compare.endpoint)):"]
        if let other = compare.truth, other.seed != truth.seed || other.venues.count != truth.venues.count {
            lines.append(
                "  (warning: its truth file is of another city: seed \(other.seed), \(other.venues.count) venues)")
        }
        let without = compare.grids.measured
        let reference = self.reference?.measured
        let targets = self.targets
        lines += errorsWithAndWithout(without, reference: reference, targets: targets, trueLevels: trueLevels)
        if !targets.isEmpty {
            lines += attackedVenuesMoved(without, reference: reference, targets: targets)
        }
        return lines
    }

    /// The MAE with and without the scenario over the cells both servers measure: the whole city
    /// and its groups of venues, with and without each server's constant.
    private func errorsWithAndWithout(
        _ without: [String: Double], reference: [String: Double]?, targets: Set<String>,
        trueLevels: [String: Double]
    ) -> [String] {
        func errors(_ answers: [String: Double], _ keys: [String], constant: Double) -> (Double, Int) {
            let values = keys.compactMap { key in
                answers[key].flatMap { a in trueLevels[key].map { abs(a - constant - $0) } }
            }
            return (values.isEmpty ? .nan : values.reduce(0, +) / Double(values.count), values.count)
        }
        func constant(_ answers: [String: Double]) -> Double {
            let values = steadyKeys.compactMap { key in answers[key].flatMap { a in trueLevels[key].map { a - $0 } } }
            return values.isEmpty ? 0 : values.reduce(0, +) / Double(values.count)
        }
        let all = evaluated.map(\.key).filter { self.server.measured[$0] != nil && without[$0] != nil }
        let others = all.filter { !targets.contains(venue(of: $0)) }
        let changed = changes
        var groups = [("whole city", all)]
        if !targets.isEmpty { groups.append(("venues not attacked", others)) }
        if !changed.isEmpty {
            groups.append(("the changed venues", all.filter { changed[venue(of: $0)] != nil }))
            groups.append(("the other venues", all.filter { changed[venue(of: $0)] == nil }))
        }
        var lines: [String] = []
        for (title, keys) in groups where !keys.isEmpty {
            let (mae, count) = errors(self.server.measured, keys, constant: 0)
            let (maeWithout, _) = errors(without, keys, constant: 0)
            let (maeRemoved, _) = errors(self.server.measured, keys, constant: constant(self.server.measured))
            let (maeWithoutRemoved, _) = errors(without, keys, constant: constant(without))
            var line = String(
                format: "  %@ (%d cells both measure): MAE %.2f with vs %.2f without (%+.2f dB); "
                    + "constant removed %.2f vs %.2f (%+.2f dB)", title, count, mae, maeWithout, mae - maeWithout,
                maeRemoved, maeWithoutRemoved, maeRemoved - maeWithoutRemoved)
            if let reference {
                let (today, _) = errors(reference, keys, constant: constant(reference))
                line += String(format: "; today's method, constant removed %.2f", today)
            }
            lines.append(line)
        }
        return lines
    }

    /// How far the scenario moved the attacked venues' measured cells, against the server without it.
    private func attackedVenuesMoved(
        _ without: [String: Double], reference: [String: Double]?, targets: Set<String>
    ) -> [String] {
        let moved = self.server.measured.keys.filter { targets.contains(venue(of: $0)) }.compactMap { key in
            without[key].map { abs((self.server.measured[key] ?? 0) - $0) }
        }.sorted()
        if moved.isEmpty {
            return ["  the attacked venues: no cell measured by both"]
        }
        let p90 = moved[min(moved.count - 1, Int((0.9 * Double(moved.count)).rounded(.up)) - 1)]
        var lines = [
            String(
                format: "  the attacked venues' measured cells (%d in both): |served − served without| "
                    + "median %.2f, 90th percentile %.2f, max %.2f dB", moved.count,
                RobustStatistics.median(moved) ?? .nan, p90, moved.last ?? .nan)
        ]
        if let reference {
            let shifted = reference.keys.filter { targets.contains(venue(of: $0)) }.compactMap { key in
                without[key].map { abs((reference[key] ?? 0) - $0) }
            }.sorted()
            if let last = shifted.last {
                lines.append(
                    String(
                        format: "    today's method against the server without: median %.2f, max %.2f dB",
                        RobustStatistics.median(shifted) ?? .nan, last))
            }
        }
        return lines
    }
}
