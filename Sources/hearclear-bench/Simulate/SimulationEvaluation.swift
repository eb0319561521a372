import Foundation
import HearClearClient
import LoudnessCore

/// `simulate --evaluate`: the served grid and judgements against the simulator's truth.
struct SimulationEvaluation {
    /// Cells need at least this many check-ins (of any kind) to be scored.
    static let minimumCheckins = 3

    let truth: SimulationTruth
    let client: SimulationClient
    let concurrency: Int
    /// The zone of the 2013 server's clock, which bucketed check-ins by its own weekday and hour.
    var legacyServerZone = TimeZone(identifier: "UTC")!
    /// How many of the server's worst cells to list, with their check-ins.
    var worst = 0
    /// `hearclear calibrate models --json` of the server, to score the recovered model offsets.
    var calibration: Data?
    /// A server holding the same city judged by today's method (an older binary), scored beside.
    var reference: SimulationClient?
    /// A server holding the same city without the scenario, and the truth of what it holds.
    var compare: (client: SimulationClient, truth: SimulationTruth)?
    /// What only the database knows (``DatabaseFigures``), when `--data-dir` was given.
    var databaseFigures: [DatabaseFigures.Section: [String]]?

    func run() async throws -> String {
        let bands = try await currentBands()
        let label = { (level: Double) -> String in
            bands.first { $0.below.map { level < $0 } ?? true }?.label ?? "?"
        }
        let grids = try await servedGrids(client)
        let served = grids.measured
        var referenceGrids: ServedGrids?
        if let reference { referenceGrids = try await servedGrids(reference) }
        let judged = try await judgements()
        let trueLevels = Dictionary(
            uniqueKeysWithValues: truth.venues.flatMap { venue in
                venue.cells.map { ("\(venue.venue.id)|\($0.weekday)|\($0.hour)", $0.trueDB) }
            })
        let scores = scoredCells(served: served, reference: referenceGrids, trueLevels: trueLevels, label: label)
        let evaluated = scores.evaluated
        var lines = methodTable(scores)
        lines.append(contentsOf: calibrated(evaluated, served: served, label: label))
        if let calibration { lines.append(contentsOf: try recoveredOffsets(calibration)) }
        lines.append(contentsOf: try await estimates(grids.estimated, trueLevels: trueLevels, label: label))
        lines.append(contentsOf: detection(judged.mapValues(\.status)))
        if truth.scenarios != nil || compare != nil {
            var compareGrids: ServedGrids?
            if let compare { compareGrids = try await servedGrids(compare.client) }
            let trust = TrustEvaluation(
                truth: truth, evaluated: evaluated, label: label, server: grids, reference: referenceGrids,
                compare: compareGrids.map { ($0, compare?.client.endpoint ?? "?", compare?.truth) },
                statuses: judged.mapValues(\.status), databaseFigures: databaseFigures)
            lines.append(contentsOf: trust.lines())
        }
        if worst > 0 {
            lines.append(contentsOf: worstCells(evaluated, served: served, judged: judged, label: label))
        }
        return lines.joined(separator: "\n")
    }

    /// The main table's cells and every method's score over them.
    private struct CellScores {
        var evaluated: [(key: String, checkins: [SimulationTruth.Checkin], trueDB: Double)]
        /// The methods in the table's order (the server and the oracle first).
        var methods: [MethodScore]
        var server: MethodScore
        var oracle: MethodScore
        /// Whether the truth file has check-in times, so the 2013 method on the server's clock is scored.
        var hasCheckinTimes: Bool
    }

    /// Scores every method on the cells with at least `minimumCheckins` check-ins.
    private func scoredCells(
        served: [String: Double], reference referenceGrids: ServedGrids?, trueLevels: [String: Double],
        label: (Double) -> String
    ) -> CellScores {
        let offset = truth.referenceOffsetDB
        let byCell = Dictionary(grouping: truth.checkins) { "\($0.venue)|\($0.weekday)|\($0.hour)" }
        let byLegacyCell = Dictionary(
            grouping: truth.checkins.filter { $0.start != nil }
        ) { SimulationMethods.legacyCellKey(venue: $0.venue, start: $0.start!, serverZone: legacyServerZone) }
        var server = MethodScore(name: "server")
        var oracle = MethodScore(name: "oracle (median of clean)")
        var energetic = MethodScore(name: "energetic mean")
        var old = MethodScore(name: "2013 method (server clock)")
        var oldLocal = MethodScore(name: "2013 estimator, local time")
        var cleanMean = MethodScore(name: "mean of clean (reference)")
        var today = MethodScore(name: "today's method")
        var evaluated: [(key: String, checkins: [SimulationTruth.Checkin], trueDB: Double)] = []
        for (key, checkins) in byCell.sorted(by: { $0.key < $1.key }) where checkins.count >= Self.minimumCheckins {
            guard let trueDB = trueLevels[key] else { continue }
            evaluated.append((key, checkins, trueDB))
            server.add(cell: key, estimate: served[key], truth: trueDB, label: label)
            oracle.add(
                cell: key, estimate: SimulationMethods.oracle(checkins, referenceOffsetDB: offset), truth: trueDB,
                label: label)
            energetic.add(
                cell: key, estimate: SimulationMethods.energeticMean(checkins, referenceOffsetDB: offset),
                truth: trueDB, label: label)
            if !byLegacyCell.isEmpty {
                old.add(
                    cell: key,
                    estimate: SimulationMethods.method2013(byLegacyCell[key] ?? [], referenceOffsetDB: offset),
                    truth: trueDB, label: label)
            }
            oldLocal.add(
                cell: key, estimate: SimulationMethods.method2013(checkins, referenceOffsetDB: offset), truth: trueDB,
                label: label)
            cleanMean.add(
                cell: key, estimate: SimulationMethods.cleanMean(checkins, referenceOffsetDB: offset), truth: trueDB,
                label: label)
            if let referenceGrids {
                today.add(cell: key, estimate: referenceGrids.measured[key], truth: trueDB, label: label)
            }
        }
        let methods =
            (byLegacyCell.isEmpty ? [server, oracle, energetic] : [server, oracle, energetic, old])
            + [oldLocal, cleanMean] + (referenceGrids == nil ? [] : [today])
        return CellScores(
            evaluated: evaluated, methods: methods, server: server, oracle: oracle,
            hasCheckinTimes: !byLegacyCell.isEmpty)
    }

    /// The main table: each method's MAE, labels and cells answered, then the server against the oracle.
    private func methodTable(_ scores: CellScores) -> [String] {
        let server = scores.server
        let oracle = scores.oracle
        var lines = [
            "cells with ≥ \(Self.minimumCheckins) check-ins: \(scores.evaluated.count) "
                + "(a cell a method cannot answer counts as a wrong label and not in its MAE)",
            "method                        MAE dB   labels   answered",
        ]
        for score in scores.methods {
            lines.append(
                score.name.padding(toLength: 28, withPad: " ", startingAt: 0)
                    + String(
                        format: "  %6.2f   %5.1f %%   %d/%d", score.meanAbsoluteError, score.labelShare * 100,
                        score.errors.count, score.cells))
        }
        if !scores.hasCheckinTimes {
            lines.append("(this truth file has no check-in times: the 2013 method on its own clock is not shown)")
        }
        let both = Set(server.errors.keys).intersection(oracle.errors.keys)
        let (serverMAE, serverLabels) = server.restricted(to: both)
        let (oracleMAE, oracleLabels) = oracle.restricted(to: both)
        lines.append(
            String(
                format: "server vs oracle on the %d cells both answer: MAE %.2f vs %.2f (%+.1f %%), "
                    + "labels %.1f vs %.1f %% (%+.1f points)",
                both.count, serverMAE, oracleMAE, (serverMAE / oracleMAE - 1) * 100, serverLabels * 100,
                oracleLabels * 100, (serverLabels - oracleLabels) * 100))
        return lines
    }

    /// The server's `worst` largest errors, each with its check-ins: kind, level, judgement.
    private func worstCells(
        _ evaluated: [(key: String, checkins: [SimulationTruth.Checkin], trueDB: Double)],
        served: [String: Double], judged: [String: Judged], label: (Double) -> String
    ) -> [String] {
        let offset = truth.referenceOffsetDB
        let ranked = evaluated.compactMap { cell in served[cell.key].map { (cell, $0) } }
            .sorted { abs($0.1 - $0.0.trueDB) > abs($1.1 - $1.0.trueDB) }
        var lines = ["worst \(min(worst, ranked.count)) cells of the server:"]
        for (cell, level) in ranked.prefix(worst) {
            let oracle = SimulationMethods.oracle(cell.checkins, referenceOffsetDB: offset)
            lines.append(
                String(
                    format: "  %@  true %.1f (%@)  server %.1f (%@)  oracle %@", cell.key, cell.trueDB,
                    label(cell.trueDB), level, label(level), oracle.map { String(format: "%.1f", $0) } ?? "-"))
            for checkin in cell.checkins {
                let judgement = judged[checkin.id]
                lines.append(
                    String(
                        format: "      %-11@ %6.1f dB  %@ %@  device %@",
                        checkin.fake.map { _ in "fake" } ?? checkin.contamination?.rawValue ?? "clean",
                        checkin.leqDBFS + offset, judgement?.status ?? "?",
                        judgement?.reasons.joined(separator: ",") ?? "", String(checkin.device.suffix(12))))
            }
        }
        return lines
    }

    /// The server, the oracle and an oracle also told each model's bias, each scored after
    /// removing its mean signed error over the cells all three answer (the crowd cannot know the
    /// absolute level: without a reference calibration the server's offsets average 0 over the
    /// models, whose true biases need not).
    private func calibrated(
        _ evaluated: [(key: String, checkins: [SimulationTruth.Checkin], trueDB: Double)],
        served: [String: Double], label: (Double) -> String
    ) -> [String] {
        guard let models = truth.models else { return [] }
        let offset = truth.referenceOffsetDB
        let bias = Dictionary(uniqueKeysWithValues: models.map { ($0.model, $0.biasDB) })
        let deviceModel = Dictionary(uniqueKeysWithValues: truth.devices.map { ($0.id, $0.model) })
        var answers: [String: [String: Double]] = ["server": [:], "oracle": [:], "biases": [:]]
        for cell in evaluated {
            answers["server"]?[cell.key] = served[cell.key]
            answers["oracle"]?[cell.key] = SimulationMethods.oracle(cell.checkins, referenceOffsetDB: offset)
            let corrected = cell.checkins.filter { $0.contamination == nil }.map { checkin in
                checkin.leqDBFS - (bias[deviceModel[checkin.device] ?? ""] ?? 0)
            }
            answers["biases"]?[cell.key] = RobustStatistics.median(corrected).map { $0 + offset }
        }
        let truths = Dictionary(uniqueKeysWithValues: evaluated.map { ($0.key, $0.trueDB) })
        let common = Set(truths.keys).filter { key in answers.values.allSatisfy { $0[key] != nil } }
        guard !common.isEmpty else { return [] }
        var lines = ["with each method's constant offset removed (\(common.count) cells all answer):"]
        var maes: [String: Double] = [:]
        for (name, title) in [
            ("server", "server"), ("oracle", "oracle (median of clean)"), ("biases", "oracle told the model biases"),
        ] {
            let answered = answers[name] ?? [:]
            let shift = common.map { (answered[$0] ?? 0) - (truths[$0] ?? 0) }.reduce(0, +) / Double(common.count)
            var score = MethodScore(name: title)
            for key in common {
                score.add(cell: key, estimate: answered[key].map { $0 - shift }, truth: truths[key] ?? 0, label: label)
            }
            maes[name] = score.meanAbsoluteError
            lines.append(
                "  " + title.padding(toLength: 30, withPad: " ", startingAt: 0)
                    + String(
                        format: "MAE %.2f dB, labels %.1f %% (constant %+.2f dB)", score.meanAbsoluteError,
                        score.labelShare * 100, shift))
        }
        if let server = maes["server"], let told = maes["biases"] {
            lines.append(String(format: "  server vs oracle told the biases: MAE %+.1f %%", (server / told - 1) * 100))
        }
        return lines
    }

    /// The server's model offsets (`hearclear calibrate models --json`) against the true ones
    /// (minus each model's bias), after removing their mean difference over the fitted models.
    private func recoveredOffsets(_ data: Data) throws -> [String] {
        guard let models = truth.models else { return ["(this truth file has no phone models)"] }
        let object = try JSONSerialization.jsonObject(with: data) as? [String: Any] ?? [:]
        let served = Dictionary(
            (object["models"] as? [[String: Any]] ?? []).compactMap { model -> (String, [String: Any])? in
                (model["model"] as? String).map { ($0, model) }
            }, uniquingKeysWith: { first, _ in first })
        var pairs: [(model: String, truth: Double, fitted: Double, error: Double?, checkins: Int)] = []
        var unfitted: [String] = []
        for model in models {
            guard let crowd = served[model.model]?["crowd"] as? [String: Any], crowd["status"] as? String == "fitted",
                let offset = served[model.model]?["offsetInForceDb"] as? Double
            else {
                unfitted.append(model.model)
                continue
            }
            pairs.append(
                (
                    model.model, -model.biasDB, offset, crowd["standardErrorDb"] as? Double,
                    crowd["checkins"] as? Int ?? 0
                ))
        }
        guard !pairs.isEmpty else {
            return ["recovered model offsets: none fitted (run `hearclear calibrate models --fit`)"]
        }
        let shift = pairs.map { $0.fitted - $0.truth }.reduce(0, +) / Double(pairs.count)
        let rms = (pairs.map { pow($0.fitted - shift - $0.truth, 2) }.reduce(0, +) / Double(pairs.count)).squareRoot()
        var lines = [
            String(
                format: "recovered model offsets (%d fitted; constant %+.2f dB removed): RMS error %.2f dB",
                pairs.count, shift, rms)
        ]
        for pair in pairs.sorted(by: { $0.model < $1.model }) {
            lines.append(
                "  " + pair.model.padding(toLength: 14, withPad: " ", startingAt: 0)
                    + String(
                        format: "true %+.2f  served %+.2f%@  error %+.2f  (%d co-located check-ins)", pair.truth,
                        pair.fitted - shift, pair.error.map { String(format: " ± %.2f", $0) } ?? "",
                        pair.fitted - shift - pair.truth, pair.checkins))
        }
        if !unfitted.isEmpty { lines.append("  not fitted: " + unfitted.joined(separator: ", ")) }
        return lines
    }

    /// How the server judged the spoiled and the clean check-ins.
    private func detection(_ statuses: [String: String]) -> [String] {
        var lines = ["judgements (outlier or excluded = rejected):"]
        // Fakes are clean sessions that lie: a group of their own (their kinds only in a scenario's city).
        let groups = Dictionary(grouping: truth.checkins) {
            $0.fake.map { "fake " + $0.rawValue } ?? $0.contamination?.rawValue ?? "clean"
        }
        for (kind, checkins) in groups.sorted(by: { $0.key < $1.key }) {
            let rejected = checkins.count { ["outlier", "excluded"].contains(statuses[$0.id] ?? "") }
            lines.append(
                "  " + kind.padding(toLength: max(12, kind.count), withPad: " ", startingAt: 0)
                    + String(
                        format: " %5d check-ins, %5.1f %% rejected", checkins.count,
                        100 * Double(rejected) / Double(max(1, checkins.count))))
        }
        let broken = truth.devices.filter(\.fullScale).map(\.id)
        lines.append(
            "always-full-scale devices: \(broken.count); see their flag with `hearclear devices list` (bias > 6 dB)")
        return lines
    }

    private func currentBands() async throws -> [(label: String, below: Double?)] {
        try await client.bands().map { ($0.label, $0.below) }
    }

    /// The hidden cells: the server's estimates against the truth, beside the venue's overall level,
    /// over all of them and by what they rest on.
    private func estimates(
        _ estimated: [String: ServedEstimate], trueLevels: [String: Double], label: (Double) -> String
    ) async throws -> [String] {
        guard let hidden = truth.hiddenCells, !hidden.isEmpty else { return [] }
        var overall: [String: Double] = [:]
        for venue in truth.venues.map(\.venue.id) {
            if let level = try await client.venue(venue)?.level {
                overall[venue] = level
            }
        }
        var naiveAll = MethodScore(name: "venue's overall level")
        for key in hidden {
            guard let trueDB = trueLevels[key] else { continue }
            naiveAll.add(cell: key, estimate: overall[String(key.prefix { $0 != "|" })], truth: trueDB, label: label)
        }
        let answered = hidden.filter { estimated[$0] != nil && trueLevels[$0] != nil }
        var lines = [
            "hidden cells (no check-ins sent): \(hidden.count); the server estimated \(answered.count) "
                + String(format: "(%.1f %%)", 100 * Double(answered.count) / Double(max(1, hidden.count)))
        ]
        let bases = Set(answered.compactMap { estimated[$0]?.basis }).sorted()
        for (name, keys) in [("estimates", answered)]
            + bases.map({ basis in
                ("  from \(basis)", answered.filter { estimated[$0]?.basis == basis })
            })
        {
            var estimate = MethodScore(name: "server's estimates")
            var naive = MethodScore(name: "venue's overall level")
            var inside = 0
            var widths: [Double] = []
            for key in keys {
                guard let trueDB = trueLevels[key], let served = estimated[key] else { continue }
                estimate.add(cell: key, estimate: served.level, truth: trueDB, label: label)
                naive.add(cell: key, estimate: overall[String(key.prefix { $0 != "|" })], truth: trueDB, label: label)
                if served.range.contains(trueDB) { inside += 1 }
                widths.append(served.range.upperBound - served.range.lowerBound)
            }
            let both = Set(estimate.errors.keys).intersection(naive.errors.keys)
            let (estimateMAE, estimateLabels) = estimate.restricted(to: both)
            let (naiveMAE, naiveLabels) = naive.restricted(to: both)
            lines.append(
                String(
                    format: "  %@ (%d cells): MAE %.2f dB, labels %.1f %%, truth inside the stated range %.1f %% "
                        + "(a 95 %% range; mean width %.1f dB); the venue's overall level there: MAE %.2f dB, "
                        + "labels %.1f %%",
                    name, keys.count, estimateMAE, estimateLabels * 100,
                    100 * Double(inside) / Double(max(1, widths.count)),
                    widths.isEmpty ? Double.nan : widths.reduce(0, +) / Double(widths.count), naiveMAE,
                    naiveLabels * 100))
        }
        lines.append(
            String(
                format: "  the venue's overall level on all hidden cells: MAE %.2f dB", naiveAll.meanAbsoluteError))
        return lines
    }

    /// An estimated cell as served.
    struct ServedEstimate {
        var level: Double
        var range: ClosedRange<Double>
        /// `venue_pattern`, `category_nearby`.
        var basis: String
    }

    /// A server's grids: cells keyed `venue|weekday|hour`, measured levels and estimates with their
    /// range, and the venues' `changedAt`.
    struct ServedGrids {
        var measured: [String: Double] = [:]
        var estimated: [String: ServedEstimate] = [:]
        var changedAt: [String: Date] = [:]

        /// The served level, measured or estimated.
        func level(_ key: String) -> Double? { measured[key] ?? estimated[key]?.level }
    }

    /// Served cells keyed `venue|weekday|hour`: measured levels, and estimates with their range.
    private func servedGrids(_ client: SimulationClient) async throws -> ServedGrids {
        var levels: [String: Double] = [:]
        var estimated: [String: ServedEstimate] = [:]
        var changedAt: [String: Date] = [:]
        for venue in truth.venues.map(\.venue.id) {
            guard let grid = try await client.loudness(venue) else { continue }
            changedAt[venue] = grid.changedAt
            for day in grid.days {
                guard let weekday = Components.Schemas.Weekday.allCases.firstIndex(of: day.day) else { continue }
                for hour in day.hours {
                    let key = "\(venue)|\(weekday + 1)|\(hour.hour)"
                    if hour.estimated {
                        let range = hour.range.count == 2 ? hour.range : [hour.level, hour.level]
                        estimated[key] = ServedEstimate(
                            level: hour.level, range: range[0]...range[1], basis: hour.basis?.rawValue ?? "?")
                    } else {
                        levels[key] = hour.level
                    }
                }
            }
        }
        return ServedGrids(measured: levels, estimated: estimated, changedAt: changedAt)
    }

    /// How the server judged one check-in.
    struct Judged {
        var status: String
        var reasons: [String]
    }

    /// Every check-in's judgement, waiting (up to a minute) for pending ones.
    private func judgements() async throws -> [String: Judged] {
        var statuses: [String: Judged] = [:]
        var waiting = truth.checkins.map(\.id)
        let deadline = ContinuousClock.now + .seconds(60)
        while !waiting.isEmpty {
            let found = try await withThrowingTaskGroup(of: (String, Judged?).self) { group in
                var results: [(String, Judged?)] = []
                var index = 0
                for _ in 0..<min(concurrency, waiting.count) {
                    let id = waiting[index]
                    index += 1
                    group.addTask { (id, try await judgement(of: id)) }
                }
                while let result = try await group.next() {
                    results.append(result)
                    if index < waiting.count {
                        let id = waiting[index]
                        index += 1
                        group.addTask { (id, try await judgement(of: id)) }
                    }
                }
                return results
            }
            for (id, judged) in found { statuses[id] = judged }
            waiting = found.filter { $0.1?.status == "pending" }.map(\.0)
            if waiting.isEmpty || ContinuousClock.now > deadline { break }
            try await Task.sleep(for: .seconds(1))
        }
        return statuses
    }

    private func judgement(of id: String) async throws -> Judged? {
        guard let checkin = try await client.checkin(id) else { return nil }
        return Judged(status: checkin.status.rawValue, reasons: checkin.reasons)
    }
}
