import Foundation
import HearClearModel
import HearClearStore
import Logging
import LoudnessCore
import Metrics
import PostgresNIO

/// Fits the phone models' offsets from the crowd and puts the offsets in force
/// (docs/ARCHITECTURE.md, "Crowd calibration"): periodically in the aggregation worker, and at
/// once after an admin's act (a reference calibration, an override). One instance fits at a
/// time (an advisory lock); venues whose devices' offsets moved are queued to be judged again.
public struct Calibrator: Sendable {
    let repository: CalibrationRepository
    let fitter: CrowdFitOverTime
    let referenceOffsetDB: Double
    let logger: Logger

    static let fits = Counter(label: "hearclear_calibration_fits_total")

    /// Fits over `client`'s database; model offsets are taken relative to `referenceOffsetDB`.
    public init(
        client: PostgresClient, referenceOffsetDB: Double, logger: Logger, fitter: CrowdFitOverTime = CrowdFitOverTime()
    ) {
        self.repository = CalibrationRepository(client: client, logger: logger)
        self.fitter = fitter
        self.referenceOffsetDB = referenceOffsetDB
        self.logger = logger
    }

    /// Fits and applies; `nil` when another instance was fitting.
    @discardableResult
    public func refit() async throws -> AppliedCalibration? {
        let started = ContinuousClock.now
        let fitter = fitter
        let referenceOffsetDB = referenceOffsetDB
        let applied = try await repository.withEvidence { pieces, trust, references, overrides in
            let anchors = ModelOffsetPolicy.anchors(absoluteOffsets: references, referenceOffsetDB: referenceOffsetDB)
            let result = fitter.fit(pieces, trust: trust, anchors: anchors)
            // A model's offset in force rests on its group without an OS version, else its
            // group with the most evidence (each version's own is kept beside it).
            var models = result.fit
            models.models = CalibrationRepository.modelRows(result.groups).map(\.fit)
            return (result, ModelOffsetPolicy.inForce(fit: models, anchors: anchors, overrides: overrides))
        }
        guard let applied else {
            logger.debug("calibration skipped: another instance is fitting")
            return nil
        }
        Self.fits.increment()
        logger.info(
            "calibration fitted",
            metadata: [
                "fit": "\(applied.fitID)", "changedModels": "\(applied.changedModels)",
                "changedDevices": "\(applied.changedDevices)", "queuedVenues": "\(applied.queuedVenues)",
                "changedTrust": "\(applied.changedTrust)", "deviceSteps": "\(applied.deviceSteps)",
                "modelSteps": "\(applied.modelSteps)",
                "duration": "\(ContinuousClock.now - started)",
            ])
        return applied
    }

    /// The store itself, within the package (the engine's tests and the simulator's set-up write
    /// below the acts, which refit).
    package var calibrations: CalibrationRepository { repository }

    // MARK: - What is in force

    /// Every model with check-ins, a fit, a reference or an override: its offsets and their basis.
    public func models() async throws -> [ModelCalibration] { try await repository.models() }

    /// The last crowd fit, when there has been one.
    public func latestFit() async throws -> StoredCalibrationFit? { try await repository.latestFit() }

    /// Reference calibrations, newest first (of `model`, or of every model), withdrawn ones included.
    public func references(model: String?) async throws -> [ReferenceCalibration] {
        try await repository.references(model: model)
    }

    // MARK: - Admins' acts: each refits at once, so the offsets in force follow.

    /// Records a reference calibration of `model` and refits.
    @discardableResult
    public func recordReference(
        model: String, method: ReferenceCalibration.Method, absoluteOffsetDB: Double, detail: String, by: String
    ) async throws -> (id: Int64, applied: AppliedCalibration?) {
        let id = try await repository.addReference(
            model: model, method: method, absoluteOffsetDB: absoluteOffsetDB, detail: detail, createdBy: by)
        return (id, try await refit())
    }

    /// Withdraws a reference calibration and refits; false when none was active with that id.
    public func withdrawReference(id: Int64) async throws -> Bool {
        guard try await repository.withdrawReference(id: id) else { return false }
        try await refit()
        return true
    }

    /// Sets an admin's offset for `model` and refits.
    public func override(model: String, offsetDB: Double, note: String?, by: String) async throws {
        try await repository.setOverride(model: model, offsetDB: offsetDB, note: note, setBy: by)
        try await refit()
    }

    /// Undoes `model`'s override and refits; false when it had none.
    public func removeOverride(model: String) async throws -> Bool {
        guard try await repository.removeOverride(model: model) else { return false }
        try await refit()
        return true
    }

    /// What comparing a stored check-in with a sound level meter's log gives.
    public struct MeterCalibration: Sendable, Equatable {
        public var checkinID: UUID
        /// The check-in's device model: the one the offset is for.
        public var model: String
        public var result: MeterComparison.Result
    }

    /// Why a check-in could not be compared with a meter's log.
    public enum MeterCalibrationError: Error, Equatable, Sendable, CustomStringConvertible {
        case unknownCheckin
        case noModel
        case csv(MeterCSV.Failure)
        case comparison(MeterComparison.Failure)

        public var description: String {
            switch self {
            case .unknownCheckin: "no check-in has that id"
            case .noModel: "the check-in's device sent no model: there is no model to calibrate"
            case .csv(let failure): "the meter's CSV: \(failure)"
            case .comparison(let failure): "\(failure)"
            }
        }
    }

    /// A check-in recorded beside a sound level meter, and the meter's per-second log
    /// (``MeterCSV``): the model's absolute offset, the median over the shared seconds of the
    /// meter's level less the phone's (``MeterComparison``). Records nothing.
    public func compareWithMeter(checkinID: UUID, csv: String) async throws -> MeterCalibration {
        let meter: [Int64: Double]
        do { meter = try MeterCSV.parse(csv) } catch { throw MeterCalibrationError.csv(error) }
        guard let checkin = try await repository.checkinSeconds(id: checkinID) else {
            throw MeterCalibrationError.unknownCheckin
        }
        guard let model = checkin.model else { throw MeterCalibrationError.noModel }
        switch MeterComparison.offset(phone: checkin.seconds, meter: meter) {
        case .success(let result): return MeterCalibration(checkinID: checkinID, model: model, result: result)
        case .failure(let failure): throw MeterCalibrationError.comparison(failure)
        }
    }
}
