import Foundation

/// `simulate --evaluate`: the served grid and judgements against the simulator's truth.
struct SimulationEvaluation {
    /// Cells need at least this many check-ins (of any kind) to be scored.
    static let minimumCheckins = 3

    let truth: SimulationTruth
    let client: SimulationClient
    let concurrency: Int

    func run() async throws -> String {
        let bands = try await currentBands()
        let label = { (level: Double) -> String in
            bands.first { $0.below.map { level < $0 } ?? true }?.label ?? "?"
        }
        let served = try await servedLevels()
        let statuses = try await judgements()
        let offset = truth.referenceOffsetDB
        let byCell = Dictionary(grouping: truth.checkins) { "\($0.venue)|\($0.weekday)|\($0.hour)" }
        let trueLevels = Dictionary(
            uniqueKeysWithValues: truth.venues.flatMap { venue in
                venue.cells.map { ("\(venue.venue.id)|\($0.weekday)|\($0.hour)", $0.trueDB) }
            })
        var server = MethodScore(name: "server")
        var oracle = MethodScore(name: "oracle (median of clean)")
        var energetic = MethodScore(name: "energetic mean")
        var old = MethodScore(name: "2013 method")
        for (key, checkins) in byCell.sorted(by: { $0.key < $1.key }) where checkins.count >= Self.minimumCheckins {
            guard let trueDB = trueLevels[key] else { continue }
            server.add(estimate: served[key], truth: trueDB, label: label)
            oracle.add(
                estimate: SimulationMethods.oracle(checkins, referenceOffsetDB: offset), truth: trueDB, label: label)
            energetic.add(
                estimate: SimulationMethods.energeticMean(checkins, referenceOffsetDB: offset), truth: trueDB,
                label: label)
            old.add(
                estimate: SimulationMethods.method2013(checkins, referenceOffsetDB: offset), truth: trueDB, label: label
            )
        }
        var lines = ["cells with ≥ \(Self.minimumCheckins) check-ins: \(server.absoluteErrors.count + server.missing)"]
        lines.append("method                      MAE dB   labels   cells")
        for score in [server, oracle, energetic, old] {
            lines.append(
                score.name.padding(toLength: 26, withPad: " ", startingAt: 0)
                    + String(
                        format: "  %6.2f   %5.1f %%   %d%@", score.meanAbsoluteError, score.labelShare * 100,
                        score.absoluteErrors.count, score.missing > 0 ? " (\(score.missing) missing)" : ""))
        }
        lines.append(
            String(
                format: "server vs oracle: MAE %+.1f %%, labels %+.1f points",
                (server.meanAbsoluteError / oracle.meanAbsoluteError - 1) * 100,
                (server.labelShare - oracle.labelShare) * 100))
        lines.append(contentsOf: detection(statuses))
        return lines.joined(separator: "\n")
    }

    /// How the server judged the spoiled and the clean check-ins.
    private func detection(_ statuses: [String: String]) -> [String] {
        var lines = ["judgements (outlier or excluded = rejected):"]
        let groups = Dictionary(grouping: truth.checkins) { $0.contamination?.rawValue ?? "clean" }
        for (kind, checkins) in groups.sorted(by: { $0.key < $1.key }) {
            let rejected = checkins.count { ["outlier", "excluded"].contains(statuses[$0.id] ?? "") }
            lines.append(
                "  " + kind.padding(toLength: 12, withPad: " ", startingAt: 0)
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
        let body = try await client.object("/api/v2/bands") ?? [:]
        return (body["bands"] as? [[String: Any]] ?? []).map { ($0["label"] as? String ?? "?", $0["below"] as? Double) }
    }

    /// Served cell levels keyed `venue|weekday|hour`.
    private func servedLevels() async throws -> [String: Double] {
        var levels: [String: Double] = [:]
        for venue in truth.venues.map(\.venue.id) {
            let grid = try await client.object("/api/v2/venues/\(venue)/loudness") ?? [:]
            for day in grid["days"] as? [[String: Any]] ?? [] {
                guard let name = day["day"] as? String,
                    let weekday = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]
                        .firstIndex(of: name)
                else { continue }
                for hour in day["hours"] as? [[String: Any]] ?? [] {
                    if let h = hour["hour"] as? Int, let level = hour["level"] as? Double {
                        levels["\(venue)|\(weekday + 1)|\(h)"] = level
                    }
                }
            }
        }
        return levels
    }

    /// Every check-in's status, waiting (up to a minute) for pending ones.
    private func judgements() async throws -> [String: String] {
        var statuses: [String: String] = [:]
        var waiting = truth.checkins.map(\.id)
        let deadline = ContinuousClock.now + .seconds(60)
        while !waiting.isEmpty {
            let found = try await withThrowingTaskGroup(of: (String, String?).self) { group in
                var results: [(String, String?)] = []
                var index = 0
                for _ in 0..<min(concurrency, waiting.count) {
                    let id = waiting[index]
                    index += 1
                    group.addTask { (id, try await client.object("/api/v2/checkins/\(id)")?["status"] as? String) }
                }
                while let result = try await group.next() {
                    results.append(result)
                    if index < waiting.count {
                        let id = waiting[index]
                        index += 1
                        group.addTask { (id, try await client.object("/api/v2/checkins/\(id)")?["status"] as? String) }
                    }
                }
                return results
            }
            for (id, status) in found { statuses[id] = status }
            waiting = found.filter { $0.1 == "pending" }.map(\.0)
            if waiting.isEmpty || ContinuousClock.now > deadline { break }
            try await Task.sleep(for: .seconds(1))
        }
        return statuses
    }
}
