/// Where the offset in force for a phone model comes from, strongest first.
public enum ModelOffsetSource: String, Sendable, Equatable, Codable, CaseIterable {
    /// An admin set it; it stands until undone.
    case override
    /// Reference calibrations of the model (a calibrator tone, a sound level meter).
    case reference
    /// The crowd fit.
    case crowd
}

/// The offset applied to a model's check-ins, and why.
public struct ModelOffsetInForce: Sendable, Equatable {
    public var model: String
    public var offsetDB: Double
    public var source: ModelOffsetSource

    public init(model: String, offsetDB: Double, source: ModelOffsetSource) {
        self.model = model
        self.offsetDB = offsetDB
        self.source = source
    }
}

/// Which offset is in force for each model (docs/ARCHITECTURE.md, "Crowd calibration"): an
/// admin's override, else the model's reference calibrations, else the crowd fit when it had
/// enough evidence, else none (0).
public enum ModelOffsetPolicy {
    /// The model offsets the reference calibrations imply: the median of each model's absolute
    /// offsets (dB SPL − dBFS) less the server's reference offset, since calibrated dB is
    /// dBFS + model offset + reference offset.
    public static func anchors(absoluteOffsets: [String: [Double]], referenceOffsetDB: Double) -> [String: Double] {
        absoluteOffsets.compactMapValues { offsets in
            RobustStatistics.median(offsets).map { $0 - referenceOffsetDB }
        }
    }

    /// The offsets in force, by model (models without one are absent: 0).
    public static func inForce(fit: CrowdFit, anchors: [String: Double], overrides: [String: Double])
        -> [String: ModelOffsetInForce]
    {
        var result: [String: ModelOffsetInForce] = [:]
        for model in fit.models where model.status == .fitted {
            result[model.model] = ModelOffsetInForce(model: model.model, offsetDB: model.offsetDB, source: .crowd)
        }
        for (model, offset) in anchors {
            result[model] = ModelOffsetInForce(model: model, offsetDB: offset, source: .reference)
        }
        for (model, offset) in overrides {
            result[model] = ModelOffsetInForce(model: model, offsetDB: offset, source: .override)
        }
        return result
    }
}
