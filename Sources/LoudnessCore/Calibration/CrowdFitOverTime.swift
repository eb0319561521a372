import Foundation

/// The crowd calibration in a world where phones drift and people cheat (docs/ARCHITECTURE.md,
/// "Phones that drift", "Devices that earn trust"). Pure; over ``CrowdCalibration``.
///
/// 1. **Groups and weights.** A model is fitted per OS version where the phones said (`model`,
///    `os` a group of its own; an update that changes how a model reads is then a group of its
///    own). Each piece weighs its device's trust (as the last fit left it) and its recency (a
///    ``halfLifeDays`` half-life from the latest piece), so a fresh id cannot move an offset and the
///    offsets follow slow ageing. Cells are venue × weekday × hour × the venue's period (its
///    changes in force), so a venue that changed does not make its phones look biased.
/// 2. **Steps.** After a first fit, each device's deviations from the crowd (its cell's level and
///    its group's offset taken off), in time order, are searched for a step (``OffsetStep``: a case
///    over the microphone); so is each group's (its devices' own taken off: an update the phones
///    did not report). A device or group with a step is two in the second fit, before and after.
/// 3. **Trust.** Each device's pieces, in time order, against the others' level in their cell
///    (the most trusted others', corrected by the fit), weighed by their trust: its
///    ``DeviceTrust`` standing, recomputed with the trust it gives until it settles. A device's deviation is its own effect; a stepped device agrees
///    again once its offset after the step is fitted.
public struct CrowdFitOverTime: Sendable {
    public var crowd = CrowdCalibration()
    public var trust = DeviceTrust()
    public var deviceSteps = OffsetStep.Test()
    public var groupSteps: OffsetStep.Test = {
        var test = OffsetStep.Test()
        test.minimumShiftDB = 2
        test.minimumBefore = 20
        test.minimumAfter = 10
        test.window = 400
        return test
    }()
    /// Days after which a piece counts half.
    public var halfLifeDays = 60.0
    /// Rounds of the trust's fixed point, and the move under which it has settled.
    public var trustRounds = 10
    public var trustTolerance = 0.005

    public init() {}

    /// What the fit decided for a device.
    public struct Device: Sendable, Equatable {
        public var device: Int64
        public var model: String
        /// Its own offset now (from ``since``), and before, dB (0 without enough evidence).
        public var offsetDB: Double
        public var earlierOffsetDB: Double
        /// When its latest step began (-infinity without one), and the step.
        public var since: Double
        public var step: OffsetStep?
        public var standing: DeviceTrust.Standing
        /// Venues it checked in at, among the evidence.
        public var venues: Int
    }

    /// What the fit decided for a model and OS version (`os` nil: the model without one).
    public struct Group: Sendable, Equatable {
        public var model: String
        public var os: String?
        /// The group's fit (the offset from ``since``; ``earlierOffsetDB`` before).
        public var fit: ModelOffsetFit
        public var earlierOffsetDB: Double
        public var since: Double
        public var step: OffsetStep?
    }

    public struct Result: Sendable, Equatable {
        public var fit: CrowdFit
        public var groups: [Group]
        public var devices: [Device]
    }

    /// `fit(_:trust:anchors:)`: the fit of `pieces` (any order), with the devices' trust as the
    /// last fit left it (absent: a fresh device, ``DeviceTrust/floor``) and the models' anchors
    /// (reference calibrations, by model: applied to the model's group with the most evidence).
    public func fit(_ pieces: [CrowdPiece], trust previous: [Int64: Double] = [:], anchors: [String: Double] = [:])
        -> Result
    {
        let ordered = pieces.sorted { ($0.time, $0.device) < ($1.time, $1.device) }
        let latest = ordered.last?.time ?? 0
        let recency = RecencyWeight(halfLifeDays: halfLifeDays)
        let weights = ordered.map { piece in
            max(previous[piece.device] ?? DeviceTrust.floor, DeviceTrust.floor)
                * recency.weight(ageSeconds: latest - piece.time)
        }
        let groupOf = ordered.map { Self.group($0.model, $0.os) }
        let anchored = Self.anchors(anchors, groups: groupOf, pieces: ordered)
        // First fit: one segment a device and a group.
        let first = crowd.fit(
            observations(ordered, weights: weights, group: groupOf, device: { ordered[$0].device }), anchors: anchored)
        let deviceStep = findDeviceSteps(ordered, groups: groupOf, fit: first)
        let groupStep = findGroupSteps(ordered, groups: groupOf, fit: first)
        // Second fit: a device or group with a step is two.
        let segmentedGroup = ordered.indices.map { index in
            Self.segment(groupOf[index], step: groupStep[groupOf[index]], time: ordered[index].time)
        }
        let segmentedDevice = ordered.indices.map { index in
            Self.segmentKey(ordered[index].device, step: deviceStep[ordered[index].device], time: ordered[index].time)
        }
        let second = crowd.fit(
            observations(ordered, weights: weights, group: segmentedGroup, device: { segmentedDevice[$0] }),
            anchors: Self.anchors(anchors, groups: segmentedGroup, pieces: ordered))
        // Trust is a fixed point: the standings again with the trust they give, until none moves
        // by ``trustTolerance`` (at most ``trustRounds``), so a fit on the same data gives the
        // same trust (and queues no venue).
        var trusted = previous
        var standings: [Int64: DeviceTrust.Standing] = [:]
        for _ in 0..<trustRounds {
            standings = trustStandings(
                ordered, groups: segmentedGroup, devices: segmentedDevice, fit: second, previous: trusted)
            let next = standings.mapValues(\.trust)
            let moved = Set(next.keys).union(trusted.keys).contains { device in
                abs((next[device] ?? DeviceTrust.floor) - (trusted[device] ?? DeviceTrust.floor)) >= trustTolerance
            }
            trusted = next
            if !moved { break }
        }
        return Result(
            fit: second,
            groups: groups(second, ordered: ordered, groupOf: groupOf, steps: groupStep),
            devices: devices(
                second, ordered: ordered, steps: deviceStep, standings: standings))
    }

    // MARK: - Evidence

    /// One observation per cell and (segmented) device: the median level of its pieces, weighing
    /// their mean weight.
    private func observations(
        _ pieces: [CrowdPiece], weights: [Double], group: [String], device: (Int) -> Int64
    ) -> [CrowdObservation] {
        var byKey: [Int64: [Int64: [Int]]] = [:]
        for index in pieces.indices {
            byKey[pieces[index].cellKey, default: [:]][device(index), default: []].append(index)
        }
        var observations: [CrowdObservation] = []
        for (cell, devices) in byKey.sorted(by: { $0.key < $1.key }) {
            for (key, members) in devices.sorted(by: { $0.key < $1.key }) {
                guard let level = RobustStatistics.median(members.map { pieces[$0].levelDBFS }) else { continue }
                let weight = members.reduce(0) { $0 + weights[$1] } / Double(members.count)
                observations.append(
                    CrowdObservation(
                        cell: cell, device: key, model: group[members[0]], levelDBFS: level, checkins: members.count,
                        weight: weight))
            }
        }
        return observations
    }

    /// `model` alone, or `model` and OS version, as one group name.
    static func group(_ model: String, _ os: String?) -> String {
        os.map { "\(model)\u{1F}\($0)" } ?? model
    }

    /// The model and OS of a group name.
    static func split(_ group: String) -> (model: String, os: String?) {
        let parts = group.split(separator: "\u{1F}", maxSplits: 1).map(String.init)
        return (parts[0], parts.count > 1 ? parts[1] : nil)
    }

    /// A group's name after a step: its pieces since carry a mark.
    static func segment(_ group: String, step: OffsetStep?, time: Double) -> String {
        guard let step, time >= step.at else { return group }
        return group + "\u{1E}"
    }

    /// A device's key after a step: its pieces since count as another device.
    static func segmentKey(_ device: Int64, step: OffsetStep?, time: Double) -> Int64 {
        guard let step, time >= step.at else { return device }
        return -device - 1
    }

    /// Anchors by group: each anchored model's group with the most pieces.
    static func anchors(_ anchors: [String: Double], groups: [String], pieces: [CrowdPiece]) -> [String: Double] {
        guard !anchors.isEmpty else { return [:] }
        var counts: [String: Int] = [:]
        for (index, group) in groups.enumerated() where anchors[pieces[index].model] != nil {
            counts[group, default: 0] += 1
        }
        var result: [String: Double] = [:]
        for (model, offset) in anchors {
            let best = counts.filter { split($0.key.replacingOccurrences(of: "\u{1E}", with: "")).model == model }
                .max { ($0.value, $1.key) < ($1.value, $0.key) }
            if let best { result[best.key] = offset }
        }
        return result
    }

    // MARK: - Steps

    /// Each piece's deviation from the crowd before its device's own offset: level − cell − group.
    private func deviations(_ pieces: [CrowdPiece], groups: [String], fit: CrowdFit) -> [Double?] {
        let cellLevels = Self.cellLevels(pieces, groups: groups, fit: fit)
        let offsets = Dictionary(uniqueKeysWithValues: fit.models.map { ($0.model, $0.offsetDB) })
        return pieces.indices.map { index in
            guard let cell = cellLevels[pieces[index].cellKey] else { return nil }
            return pieces[index].levelDBFS + (offsets[groups[index]] ?? 0) - cell
        }
    }

    /// Each cell's level as the fit gives it: the weighted median of its pieces' corrected levels
    /// (levels + group and device offsets).
    static func cellLevels(_ pieces: [CrowdPiece], groups: [String], fit: CrowdFit) -> [Int64: Double] {
        let offsets = Dictionary(uniqueKeysWithValues: fit.models.map { ($0.model, $0.offsetDB) })
        let own = Dictionary(fit.devices.map { ($0.device, $0.offsetDB) }, uniquingKeysWith: { first, _ in first })
        var byCell: [Int64: [Double]] = [:]
        for (index, piece) in pieces.enumerated() {
            byCell[piece.cellKey, default: []].append(
                piece.levelDBFS + (offsets[groups[index]] ?? 0) + (own[piece.device] ?? 0))
        }
        return byCell.compactMapValues { $0.count >= 2 ? RobustStatistics.median($0) : nil }
    }

    private func findDeviceSteps(_ pieces: [CrowdPiece], groups: [String], fit: CrowdFit) -> [Int64: OffsetStep] {
        let deviation = deviations(pieces, groups: groups, fit: fit)
        let scale = fit.scaleDB ?? 3
        var series: [Int64: [(time: Double, valueDB: Double)]] = [:]
        for (index, piece) in pieces.enumerated() {
            if let value = deviation[index] { series[piece.device, default: []].append((piece.time, value)) }
        }
        return series.compactMapValues { OffsetStep.find($0, scaleDB: scale, test: deviceSteps) }
    }

    private func findGroupSteps(_ pieces: [CrowdPiece], groups: [String], fit: CrowdFit) -> [String: OffsetStep] {
        // The devices' own offsets taken off too: the group's deviation is what they share.
        let deviation = deviations(pieces, groups: groups, fit: fit)
        let own = Dictionary(fit.devices.map { ($0.device, $0.offsetDB) }, uniquingKeysWith: { first, _ in first })
        var series: [String: [(time: Double, valueDB: Double)]] = [:]
        for (index, piece) in pieces.enumerated() {
            if let value = deviation[index] {
                series[groups[index], default: []].append((piece.time, value + (own[piece.device] ?? 0)))
            }
        }
        let scale = fit.scaleDB ?? 3
        return series.compactMapValues { OffsetStep.find($0, scaleDB: scale, test: groupSteps) }
    }

    // MARK: - Trust

    /// Each device's standing from its pieces against the others in their cells.
    private func trustStandings(
        _ pieces: [CrowdPiece], groups: [String], devices: [Int64], fit: CrowdFit, previous: [Int64: Double]
    ) -> [Int64: DeviceTrust.Standing] {
        let offsets = Dictionary(uniqueKeysWithValues: fit.models.map { ($0.model, $0.offsetDB) })
        let own = Dictionary(fit.devices.map { ($0.device, $0.offsetDB) }, uniquingKeysWith: { first, _ in first })
        let corrected = pieces.indices.map { index in
            pieces[index].levelDBFS + (offsets[groups[index]] ?? 0) + (own[devices[index]] ?? 0)
        }
        var byCell: [Int64: [Int]] = [:]
        for index in pieces.indices { byCell[pieces[index].cellKey, default: []].append(index) }
        var evidence: [Int64: [DeviceTrust.Evidence]] = [:]
        for members in byCell.values {
            for index in members {
                let device = pieces[index].device
                let others = members.filter { pieces[$0].device != device }
                guard !others.isEmpty else { continue }
                // The others' level: the trust-weighted median (one value a device) of those at
                // least half as trusted as the most trusted of them, weighing their trust summed.
                // So fresh ids cannot outvote an established phone into disagreeing, nor agree
                // with each other where one is present; where none is (a new city), fresh ids
                // that agree earn trust together, 0.1 each.
                var byDevice: [Int64: [Double]] = [:]
                for other in others { byDevice[pieces[other].device, default: []].append(corrected[other]) }
                let values = byDevice.compactMap { key, levels in
                    RobustStatistics.median(levels).map {
                        ($0, max(previous[key] ?? DeviceTrust.floor, DeviceTrust.floor))
                    }
                }
                guard let most = values.map(\.1).max() else { continue }
                let reference = values.filter { $0.1 >= most / 2 }
                guard let level = RobustStatistics.weightedMedian(reference) else { continue }
                evidence[device, default: []].append(
                    DeviceTrust.Evidence(
                        time: pieces[index].time, residualDB: corrected[index] - level,
                        referenceTrust: reference.reduce(0) { $0 + $1.1 }))
            }
        }
        return evidence.mapValues(trust.standing)
    }

    // MARK: - Results

    private func groups(_ fit: CrowdFit, ordered: [CrowdPiece], groupOf: [String], steps: [String: OffsetStep])
        -> [Group]
    {
        let byName = Dictionary(uniqueKeysWithValues: fit.models.map { ($0.model, $0) })
        return Set(groupOf).sorted().compactMap { name in
            let step = steps[name]
            let after = step.flatMap { _ in byName[name + "\u{1E}"] }
            guard let current = after ?? byName[name] else { return nil }
            let (model, os) = Self.split(name)
            var fit = current
            fit.model = model
            return Group(
                model: model, os: os, fit: fit,
                earlierOffsetDB: step != nil ? byName[name]?.offsetDB ?? 0 : fit.offsetDB,
                since: after != nil ? step!.at : -.infinity, step: after != nil ? step : nil)
        }
    }

    private func devices(
        _ fit: CrowdFit, ordered: [CrowdPiece], steps: [Int64: OffsetStep], standings: [Int64: DeviceTrust.Standing]
    ) -> [Device] {
        let own = Dictionary(fit.devices.map { ($0.device, $0.offsetDB) }, uniquingKeysWith: { first, _ in first })
        var model: [Int64: String] = [:]
        var venues: [Int64: Set<Int64>] = [:]
        for piece in ordered {
            model[piece.device] = piece.model
            venues[piece.device, default: []].insert(piece.venue)
        }
        return model.keys.sorted().map { device in
            let step = steps[device]
            let before = own[device] ?? 0
            let after = step != nil ? own[-device - 1] ?? 0 : before
            return Device(
                device: device, model: model[device] ?? "", offsetDB: after, earlierOffsetDB: before,
                since: step?.at ?? -.infinity, step: step,
                standing: standings[device]
                    ?? DeviceTrust.Standing(
                        trust: DeviceTrust.floor, agreements: 0, recentDisagreements: 0, checkins: 0),
                venues: venues[device]?.count ?? 0)
        }
    }
}
