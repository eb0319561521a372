/// One device's level in one venue cell, the unit of evidence of the crowd calibration: the
/// median level of the device's counted pieces in that cell, as the phone measured it (dBFS,
/// before any offset).
public struct CrowdObservation: Sendable, Equatable {
    /// The venue cell (any key that is the same for one venue × weekday × hour).
    public var cell: Int64
    public var device: Int64
    public var model: String
    public var levelDBFS: Double
    /// Check-in pieces behind the level (≥ 1): its weight, and the evidence it counts as.
    public var checkins: Int
    /// What each of those pieces weighs (0…1): its device's trust and its recency; 1 by default.
    public var weight: Double

    public init(cell: Int64, device: Int64, model: String, levelDBFS: Double, checkins: Int, weight: Double = 1) {
        self.cell = cell
        self.device = device
        self.model = model
        self.levelDBFS = levelDBFS
        self.checkins = max(1, checkins)
        self.weight = min(max(weight, 1e-6), 1)
    }
}

/// The crowd's estimate of one phone model's offset (dB added to its dBFS, as
/// `CalibrationOffsets.deviceModelOffsetDB`).
public struct ModelOffsetFit: Sendable, Equatable {
    public enum Status: String, Sendable, Equatable, Codable {
        /// Enough co-located evidence: the offset is the crowd's.
        case fitted
        /// Too few check-ins in cells shared with another model: the offset is 0.
        case insufficientEvidence = "insufficient_evidence"
    }

    public var model: String
    /// The offset, relative to the anchors of its component (or to the component's weighted
    /// mean when it has none); 0 when ``status`` is not ``Status/fitted``.
    public var offsetDB: Double
    /// Approximate standard error of `offsetDB` (see ``CrowdCalibration``); `nil` without a fit.
    public var standardErrorDB: Double?
    /// Check-ins of the model in cells another model also measured.
    public var checkins: Int
    public var devices: Int
    /// The connected group of models that met in cells: its first model by name.
    public var component: String
    /// Whether the component's absolute level came from reference calibrations.
    public var anchored: Bool
    public var status: Status

    public init(
        model: String, offsetDB: Double, standardErrorDB: Double?, checkins: Int, devices: Int, component: String,
        anchored: Bool, status: Status
    ) {
        self.model = model
        self.offsetDB = offsetDB
        self.standardErrorDB = standardErrorDB
        self.checkins = checkins
        self.devices = devices
        self.component = component
        self.anchored = anchored
        self.status = status
    }
}

/// A device's deviation from its model, shrunk toward 0 (the model).
public struct DeviceDeviationFit: Sendable, Equatable {
    public var device: Int64
    public var model: String
    /// dB added to the device's dBFS on top of its model's offset; 0 with too little evidence or
    /// beyond ``CrowdCalibration/maximumDeviceOffsetDB``.
    public var offsetDB: Double
    public var standardErrorDB: Double?
    /// Check-ins of the device in cells another device also measured.
    public var checkins: Int
}

/// The result of one crowd fit.
public struct CrowdFit: Sendable, Equatable {
    public var models: [ModelOffsetFit]
    public var devices: [DeviceDeviationFit]
    /// The robust residual scale (1.4826·MAD of the residuals), dB.
    public var scaleDB: Double?
    /// Cells with at least two devices, the only ones that say anything.
    public var cells: Int
    public var observations: Int
    public var iterations: Int

    /// The model's fit, if it was seen.
    public func model(_ name: String) -> ModelOffsetFit? { models.first { $0.model == name } }
}

/// Phone-model offsets (and smaller per-device deviations) learned from co-located check-ins
/// (docs/ARCHITECTURE.md, "Crowd calibration").
///
/// The model: a device `d` of model `m` measuring cell `c` reads
/// `y = μ_c + b_m + e_d + ε`, where `μ_c` is the cell's level, `b_m` the model's bias, `e_d` the
/// device's own and `ε` noise (the evening, the phone's pocket, junk). The offset that corrects
/// it is `−b_m` (and `−e_d`). Only differences within a cell carry information, so only cells
/// with at least two devices are used, and only the models connected through shared cells can
/// be compared: each connected group (component) is fitted on its own and its absolute level is
/// fixed by its anchors (models with a reference calibration), else by keeping its weighted mean
/// offset at 0 (the reference offset then carries the absolute scale).
///
/// Fitting: alternating weighted means (backfitting) with Huber weights, k = 1.345 robust
/// scales, which keeps 95 % efficiency on clean normal data and bounds the pull of junk; the
/// device effects are ridge-shrunk toward their model with ``deviceShrinkage`` pseudo-check-ins,
/// so a device with a few check-ins stays close to its model. The standard error of a model's
/// offset is `√(s² / Σ wᵢ·(1 − wᵢ/W_c) + τ² / devices)`: the residual scale over the effective
/// number of check-ins, each discounted by its share of its cell (a cell's level is estimated
/// from the same check-ins), plus the spread τ (``deviceSpreadDB``) of the model's phones, whose
/// mean deviation the crowd cannot tell from the model's. It ignores the uncertainty of the
/// other models' offsets.
public struct CrowdCalibration: Sendable {
    /// Huber's tuning constant, in robust scales.
    public var huberK = 1.345
    /// Pseudo-check-ins of a device's shrinkage toward its model: σ²/τ² for a noise σ of about
    /// 2.5 dB and a device spread τ about its model of about 1 dB.
    public var deviceShrinkage = 6.0
    /// Spread of phones about their model, dB: what a model's offset cannot tell from the mean
    /// deviation of the few phones that measured it (``deviceShrinkage`` assumes it too).
    public var deviceSpreadDB = 1.0
    /// Fewest co-located check-ins (in cells another model measured too) for a model offset.
    public var minimumModelCheckins = 10
    /// Fewest co-located check-ins for a device deviation.
    public var minimumDeviceCheckins = 3
    /// Largest device deviation applied, dB: a phone further from its model than the device flag
    /// (``DeviceCalibration/flagThresholdDB``) is broken or misused, not miscalibrated, and a
    /// correction would only make its junk look plausible. It gets none (and stays flagged).
    public var maximumDeviceOffsetDB = DeviceCalibration.flagThresholdDB
    /// Most broken devices dropped (one refit each); any others are left to the Huber weights.
    public var maximumBrokenDevices = 20
    /// Floor of the residual scale, dB: perfectly agreeing data must not give infinite weights.
    public var minimumScaleDB = 0.2
    public var maximumIterations = 200
    /// Stop when no effect moves more than this, dB.
    public var toleranceDB = 0.0005

    public init() {}

    /// Fits `observations`; `anchors` are the offsets (dB) that models with a reference
    /// calibration must get: their component is shifted to match them (the mean of the
    /// differences over the component's anchored models).
    ///
    /// A device whose readings sit further from its model than ``maximumDeviceOffsetDB`` (the
    /// median of its residuals with its own effect) is broken, not miscalibrated: its
    /// observations are dropped and the fit is done again without it (the worst first, at most
    /// ``maximumBrokenDevices`` of them), so that an always-full-scale phone does not drag its
    /// model. It is listed with no deviation.
    public func fit(_ observations: [CrowdObservation], anchors: [String: Double] = [:]) -> CrowdFit {
        var broken: [Int64: String] = [:]
        var kept = observations
        var round = 0
        while true {
            round += 1
            let (fit, deviations) = fitOnce(kept, anchors: anchors)
            // The worst device only: junk drags its cells and model, so others may look deviant
            // until it is gone.
            let worst = deviations.filter { abs($0.value) > maximumDeviceOffsetDB }
                .max { abs($0.value) < abs($1.value) || (abs($0.value) == abs($1.value) && $0.key > $1.key) }
            if worst == nil || round == maximumBrokenDevices + 1 {
                var result = fit
                for (device, model) in broken.sorted(by: { $0.key < $1.key }) {
                    result.devices.append(
                        DeviceDeviationFit(device: device, model: model, offsetDB: 0, standardErrorDB: nil, checkins: 0)
                    )
                }
                return result
            }
            for observation in kept where observation.device == worst?.key {
                broken[observation.device] = observation.model
            }
            kept = observations.filter { broken[$0.device] == nil }
        }
    }

    /// One fit, and each device's median residual with its own effect (its whole deviation from
    /// its model).
    private func fitOnce(_ observations: [CrowdObservation], anchors: [String: Double]) -> (
        CrowdFit, [Int64: Double]
    ) {
        guard let design = CrowdDesign(observations) else {
            return (CrowdFit(models: [], devices: [], scaleDB: nil, cells: 0, observations: 0, iterations: 0), [:])
        }
        var evidence = CrowdEvidence(design)
        let effects = fitEffects(design, evidence: &evidence)
        let information = CrowdInformation(design, evidence: evidence, weight: effects.weight)
        let models = modelFits(
            design, evidence: &evidence, effects: effects, information: information, anchors: anchors)
        let devices = deviceFits(design, evidence: evidence, effects: effects, information: information)
        return (
            CrowdFit(
                models: models, devices: devices, scaleDB: effects.scale, cells: design.cellKeys.count,
                observations: design.used.count, iterations: effects.iterations),
            effects.wholeDeviations(design)
        )
    }

    /// Cells, models, then devices (shrunk toward their model), each the weighted mean of what the
    /// others leave, with Huber weights from the residuals' robust scale, until nothing moves.
    private func fitEffects(_ design: CrowdDesign, evidence: inout CrowdEvidence) -> CrowdEffects {
        let (c, m, d, y, n) = (design.c, design.m, design.d, design.y, design.n)
        var mu = [Double](repeating: 0, count: design.cellKeys.count)
        var bias = [Double](repeating: 0, count: design.modelNames.count)
        var own = [Double](repeating: 0, count: design.deviceKeys.count)
        var weight = n
        var scale = minimumScaleDB
        var iterations = 0
        var residual = [Double](repeating: 0, count: design.used.count)
        while iterations < maximumIterations {
            iterations += 1
            var moved = 0.0
            // Cells, models, then devices (shrunk toward their model), each the weighted mean of
            // what the others leave.
            Self.update(&mu, groups: c, weights: weight, moved: &moved) { y[$0] - bias[m[$0]] - own[d[$0]] }
            Self.update(&bias, groups: m, weights: weight, moved: &moved) { y[$0] - mu[c[$0]] - own[d[$0]] }
            Self.update(&own, groups: d, weights: weight, prior: deviceShrinkage, moved: &moved) {
                y[$0] - mu[c[$0]] - bias[m[$0]]
            }
            // Each component's model biases average 0 (weighted by check-ins); the cells take
            // the difference, so the fitted values do not change.
            centre(
                &bias, &mu, components: &evidence.components, cellModel: evidence.firstModelInCell,
                weights: evidence.modelEvidence)
            // Huber weights from the residuals' robust scale.
            for i in design.used.indices { residual[i] = y[i] - mu[c[i]] - bias[m[i]] - own[d[i]] }
            scale = max(
                minimumScaleDB,
                RobustStatistics.madToSigma * (RobustStatistics.median(residual.map(abs)) ?? minimumScaleDB))
            let limit = huberK * scale
            for i in design.used.indices {
                let size = abs(residual[i])
                weight[i] = n[i] * (size <= limit ? 1 : limit / size)
            }
            if moved < toleranceDB { break }
        }
        return CrowdEffects(mu: mu, bias: bias, own: own, weight: weight, scale: scale, iterations: iterations)
    }

    /// Each model's offset: its bias, shifted to its component's anchors (else the weighted mean
    /// of 0 already there), with its standard error.
    private func modelFits(
        _ design: CrowdDesign, evidence: inout CrowdEvidence, effects: CrowdEffects, information: CrowdInformation,
        anchors: [String: Double]
    ) -> [ModelOffsetFit] {
        let (modelNames, bias, scale) = (design.modelNames, effects.bias, effects.scale)
        var shift = [Int: (sum: Double, count: Int)]()
        for (name, anchor) in anchors {
            guard let k = design.modelIndex[name], evidence.modelEvidence[k] >= minimumModelCheckins else { continue }
            let root = evidence.components.find(k)
            shift[root, default: (0, 0)].sum += anchor - (-bias[k])
            shift[root, default: (0, 0)].count += 1
        }
        return modelNames.indices.map { k -> ModelOffsetFit in
            let root = evidence.components.find(k)
            let anchorShift = shift[root].map { $0.sum / Double($0.count) }
            let fitted = evidence.modelEvidence[k] >= minimumModelCheckins
            return ModelOffsetFit(
                model: modelNames[k], offsetDB: fitted ? -bias[k] + (anchorShift ?? 0) : 0,
                standardErrorDB: fitted && information.models[k] > 0
                    ? (scale * scale / information.models[k]
                        + deviceSpreadDB * deviceSpreadDB / Double(max(1, evidence.modelDevices[k].count)))
                        .squareRoot()
                    : nil,
                checkins: evidence.modelEvidence[k], devices: evidence.modelDevices[k].count,
                component: modelNames[modelNames.indices.first { evidence.components.find($0) == root } ?? k],
                anchored: anchorShift != nil, status: fitted ? .fitted : .insufficientEvidence)
        }
    }

    /// Each device's deviation from its model, 0 with too little evidence or beyond
    /// ``maximumDeviceOffsetDB``.
    private func deviceFits(
        _ design: CrowdDesign, evidence: CrowdEvidence, effects: CrowdEffects, information: CrowdInformation
    ) -> [DeviceDeviationFit] {
        design.deviceKeys.indices.map { k -> DeviceDeviationFit in
            let own = effects.own[k]
            let fitted = evidence.deviceEvidence[k] >= minimumDeviceCheckins && abs(own) <= maximumDeviceOffsetDB
            return DeviceDeviationFit(
                device: design.deviceKeys[k], model: design.modelNames[design.deviceModel[k]],
                offsetDB: fitted ? -own : 0,
                standardErrorDB: fitted
                    ? effects.scale / (information.devices[k] + deviceShrinkage).squareRoot() : nil,
                checkins: evidence.deviceEvidence[k])
        }
    }

    /// Sets each effect to the weighted mean of `value(i)` over the observations of its group,
    /// pulled toward 0 by `prior` pseudo-weights; an effect without observations (and no prior)
    /// stays. `moved` grows to the largest change.
    private static func update(
        _ effects: inout [Double], groups: [Int], weights: [Double], prior: Double = 0, moved: inout Double,
        value: (Int) -> Double
    ) {
        var sum = [Double](repeating: 0, count: effects.count)
        var total = [Double](repeating: 0, count: effects.count)
        for i in groups.indices {
            sum[groups[i]] += weights[i] * value(i)
            total[groups[i]] += weights[i]
        }
        for k in effects.indices where total[k] + prior > 0 {
            let next = sum[k] / (total[k] + prior)
            moved = max(moved, abs(next - effects[k]))
            effects[k] = next
        }
    }

    /// Moves each component's weighted mean model bias into its cells.
    private func centre(
        _ bias: inout [Double], _ mu: inout [Double], components: inout UnionFind, cellModel: [Int], weights: [Int]
    ) {
        var sum: [Int: Double] = [:]
        var total: [Int: Double] = [:]
        for k in bias.indices {
            let root = components.find(k)
            let w = Double(max(1, weights[k]))
            sum[root, default: 0] += w * bias[k]
            total[root, default: 0] += w
        }
        var mean: [Int: Double] = [:]
        for (root, s) in sum { mean[root] = s / (total[root] ?? 1) }
        for k in bias.indices { bias[k] -= mean[components.find(k)] ?? 0 }
        for cell in mu.indices where cellModel[cell] >= 0 { mu[cell] += mean[components.find(cellModel[cell])] ?? 0 }
    }
}

/// The observations of cells with at least two devices, with dense indexes: observation `i` is
/// of cell `c[i]`, model `m[i]`, device `d[i]`, level `y[i]` and weight `n[i]` (check-ins × weight).
private struct CrowdDesign {
    let used: [CrowdObservation]
    let cellKeys: [Int64]
    let modelNames: [String]
    let deviceKeys: [Int64]
    let modelIndex: [String: Int]
    let c: [Int]
    let m: [Int]
    let d: [Int]
    let y: [Double]
    let n: [Double]
    /// Each device's model.
    let deviceModel: [Int]

    /// `nil` when no cell has two devices.
    init?(_ observations: [CrowdObservation]) {
        var devicesByCell: [Int64: Set<Int64>] = [:]
        for observation in observations { devicesByCell[observation.cell, default: []].insert(observation.device) }
        let used = observations.filter { (devicesByCell[$0.cell]?.count ?? 0) >= 2 }
        guard !used.isEmpty else { return nil }
        self.used = used
        cellKeys = Array(Set(used.map(\.cell))).sorted()
        modelNames = Array(Set(used.map(\.model))).sorted()
        deviceKeys = Array(Set(used.map(\.device))).sorted()
        let cellIndex = Dictionary(uniqueKeysWithValues: cellKeys.enumerated().map { ($1, $0) })
        let modelIndex = Dictionary(uniqueKeysWithValues: modelNames.enumerated().map { ($1, $0) })
        let deviceIndex = Dictionary(uniqueKeysWithValues: deviceKeys.enumerated().map { ($1, $0) })
        self.modelIndex = modelIndex
        c = used.map { cellIndex[$0.cell]! }
        m = used.map { modelIndex[$0.model]! }
        d = used.map { deviceIndex[$0.device]! }
        y = used.map(\.levelDBFS)
        n = used.map { Double($0.checkins) * $0.weight }
        var deviceModel = [Int](repeating: 0, count: deviceKeys.count)
        for i in used.indices { deviceModel[d[i]] = m[i] }
        self.deviceModel = deviceModel
    }
}

/// Which models met in cells (connected components), and the evidence of each model (check-ins
/// in cells shared with another model) and device (check-ins in cells shared with another device).
private struct CrowdEvidence {
    var components: UnionFind
    /// The first model seen in each cell.
    let firstModelInCell: [Int]
    let modelsInCell: [Set<Int>]
    let modelEvidence: [Int]
    let deviceEvidence: [Int]
    let modelDevices: [Set<Int>]

    init(_ design: CrowdDesign) {
        let (c, m, d, used) = (design.c, design.m, design.d, design.used)
        var components = UnionFind(count: design.modelNames.count)
        var firstModelInCell = [Int](repeating: -1, count: design.cellKeys.count)
        for i in used.indices {
            if firstModelInCell[c[i]] < 0 {
                firstModelInCell[c[i]] = m[i]
            } else {
                components.union(firstModelInCell[c[i]], m[i])
            }
        }
        var modelsInCell = [Set<Int>](repeating: [], count: design.cellKeys.count)
        for i in used.indices { modelsInCell[c[i]].insert(m[i]) }
        var modelEvidence = [Int](repeating: 0, count: design.modelNames.count)
        var deviceEvidence = [Int](repeating: 0, count: design.deviceKeys.count)
        var modelDevices = [Set<Int>](repeating: [], count: design.modelNames.count)
        for i in used.indices {
            if modelsInCell[c[i]].count >= 2 { modelEvidence[m[i]] += used[i].checkins }
            deviceEvidence[d[i]] += used[i].checkins
            modelDevices[m[i]].insert(d[i])
        }
        self.components = components
        self.firstModelInCell = firstModelInCell
        self.modelsInCell = modelsInCell
        self.modelEvidence = modelEvidence
        self.deviceEvidence = deviceEvidence
        self.modelDevices = modelDevices
    }
}

/// The fitted effects: cells' levels `mu`, models' biases, devices' own effects, the final Huber
/// weights and residual scale.
private struct CrowdEffects {
    let mu: [Double]
    let bias: [Double]
    let own: [Double]
    let weight: [Double]
    let scale: Double
    let iterations: Int

    /// Each device's median residual with its own effect (its whole deviation from its model).
    func wholeDeviations(_ design: CrowdDesign) -> [Int64: Double] {
        let (c, m, d, y) = (design.c, design.m, design.d, design.y)
        var deviations: [Int: [Double]] = [:]
        for i in design.used.indices { deviations[d[i], default: []].append(y[i] - mu[c[i]] - bias[m[i]]) }
        return Dictionary(
            uniqueKeysWithValues: deviations.map {
                (design.deviceKeys[$0.key], RobustStatistics.median($0.value) ?? 0)
            })
    }
}

/// The effective check-ins behind each model's and device's effect, for the standard errors:
/// each weight discounted by its share of its cell.
private struct CrowdInformation {
    let models: [Double]
    let devices: [Double]

    init(_ design: CrowdDesign, evidence: CrowdEvidence, weight: [Double]) {
        let (c, m, d) = (design.c, design.m, design.d)
        var cellWeight = [Double](repeating: 0, count: design.cellKeys.count)
        for i in design.used.indices { cellWeight[c[i]] += weight[i] }
        var models = [Double](repeating: 0, count: design.modelNames.count)
        var devices = [Double](repeating: 0, count: design.deviceKeys.count)
        for i in design.used.indices {
            let effective = weight[i] * (1 - weight[i] / cellWeight[c[i]])
            if evidence.modelsInCell[c[i]].count >= 2 { models[m[i]] += effective }
            devices[d[i]] += effective
        }
        self.models = models
        self.devices = devices
    }
}

/// Disjoint sets of `0..<count` with path halving and union by size.
struct UnionFind {
    private var parent: [Int]
    private var size: [Int]

    init(count: Int) {
        parent = Array(0..<count)
        size = [Int](repeating: 1, count: count)
    }

    mutating func find(_ x: Int) -> Int {
        var x = x
        while parent[x] != x {
            parent[x] = parent[parent[x]]
            x = parent[x]
        }
        return x
    }

    mutating func union(_ a: Int, _ b: Int) {
        var a = find(a)
        var b = find(b)
        guard a != b else { return }
        if size[a] < size[b] { swap(&a, &b) }
        parent[b] = a
        size[a] += size[b]
    }
}
