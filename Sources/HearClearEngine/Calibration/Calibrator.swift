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
    let fitter: CrowdCalibration
    let referenceOffsetDB: Double
    let logger: Logger

    static let fits = Counter(label: "hearclear_calibration_fits_total")

    public init(
        client: PostgresClient, referenceOffsetDB: Double, logger: Logger, fitter: CrowdCalibration = CrowdCalibration()
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
        let applied = try await repository.withEvidence { observations, references, overrides in
            let anchors = ModelOffsetPolicy.anchors(absoluteOffsets: references, referenceOffsetDB: referenceOffsetDB)
            let fit = fitter.fit(observations, anchors: anchors)
            return (fit, ModelOffsetPolicy.inForce(fit: fit, anchors: anchors, overrides: overrides))
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
                "duration": "\(ContinuousClock.now - started)",
            ])
        return applied
    }

    /// The store, for reading and for admins' acts.
    public var calibrations: CalibrationRepository { repository }
}
