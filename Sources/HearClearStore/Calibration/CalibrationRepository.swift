import Foundation
import HearClearModel
import Logging
import LoudnessCore
import PostgresNIO

/// The crowd calibration's data (docs/ARCHITECTURE.md, "Crowd calibration"): the co-located
/// evidence, reference calibrations, admin overrides, fits, and the offsets in force.
public struct CalibrationRepository: Sendable {
    let client: PostgresClient
    let logger: Logger

    /// An offset in force that moves less than this is left as it is (and its venues are not
    /// judged again): below what a cell's 0.1 dB rounding shows.
    public static let changeThresholdDB = 0.05
    /// Key of the advisory lock one fit holds, so instances sharing a database fit one at a time.
    static let lockKey: Int64 = 0x4843_4361_6C69_62  // "HCCalib"

    public init(client: PostgresClient, logger: Logger) {
        self.client = client
        self.logger = logger
    }

    /// The evidence, in one transaction that holds the calibration lock: `work` gets the
    /// pieces (``CrowdPiece``), the devices' trust as the last fit left it, the reference
    /// calibrations' absolute offsets and the overrides by model, and returns what to apply; `nil`
    /// when another instance is fitting.
    public func withEvidence(
        _ work:
            @Sendable (
                [CrowdPiece], _ trust: [Int64: Double], _ references: [String: [Double]], _ overrides: [String: Double]
            ) throws -> (result: CrowdFitOverTime.Result, inForce: [String: ModelOffsetInForce])
    ) async throws -> AppliedCalibration? {
        try await client.transaction(logger: logger) { connection in
            let locked = try await connection.query(
                "SELECT pg_try_advisory_xact_lock(\(Self.lockKey))", logger: logger
            ).collect().first?.decode(Bool.self)
            guard locked == true else { return nil }
            let pieces = try await Self.pieces(on: connection, logger: logger)
            let trust = try await Self.trust(on: connection, logger: logger)
            let references = try await Self.activeReferences(on: connection, logger: logger)
            let overrides = try await Self.overrides(on: connection, logger: logger)
            let (result, inForce) = try work(pieces, trust, references, overrides)
            return try await Self.apply(result, inForce: inForce, overrides: overrides, on: connection, logger: logger)
        }
    }

    static func activeReferences(on connection: PostgresConnection, logger: Logger) async throws
        -> [String: [Double]]
    {
        let rows = try await connection.query(
            "SELECT model, absolute_offset_db::float8 FROM reference_calibrations WHERE withdrawn_at IS NULL",
            logger: logger)
        var references: [String: [Double]] = [:]
        for try await (model, offset) in rows.decode((String, Double).self) {
            references[model, default: []].append(offset)
        }
        return references
    }

    static func overrides(on connection: PostgresConnection, logger: Logger) async throws -> [String: Double] {
        let rows = try await connection.query(
            "SELECT model, offset_db::float8 FROM model_offset_overrides", logger: logger)
        var overrides: [String: Double] = [:]
        for try await (model, offset) in rows.decode((String, Double).self) { overrides[model] = offset }
        return overrides
    }

    // MARK: - Reference calibrations and overrides

    /// Records a reference calibration; answers its id.
    public func addReference(
        model: String, method: ReferenceCalibration.Method, absoluteOffsetDB: Double, detail: String, createdBy: String
    ) async throws -> Int64 {
        try await client.query(
            """
            INSERT INTO reference_calibrations (model, method, absolute_offset_db, detail, created_by)
            VALUES (\(model), \(method.rawValue), \(Float(absoluteOffsetDB)), \(detail)::jsonb, \(createdBy))
            RETURNING id
            """,
            logger: logger
        ).collect().first?.decode(Int64.self) ?? 0
    }

    /// Withdraws a reference calibration (kept for the record); false when none is active with that id.
    public func withdrawReference(id: Int64) async throws -> Bool {
        let rows = try await client.query(
            "UPDATE reference_calibrations SET withdrawn_at = now() WHERE id = \(id) AND withdrawn_at IS NULL RETURNING id",
            logger: logger
        ).collect()
        return !rows.isEmpty
    }

    public func setOverride(model: String, offsetDB: Double, note: String?, setBy: String) async throws {
        try await client.query(
            """
            INSERT INTO model_offset_overrides (model, offset_db, note, set_by) VALUES (\(model), \(Float(offsetDB)), \(note), \(setBy))
            ON CONFLICT (model) DO UPDATE SET offset_db = EXCLUDED.offset_db, note = EXCLUDED.note,
                set_by = EXCLUDED.set_by, set_at = now()
            """,
            logger: logger)
    }

    /// Undoes a model's override; false when it had none.
    public func removeOverride(model: String) async throws -> Bool {
        let rows = try await client.query(
            "DELETE FROM model_offset_overrides WHERE model = \(model) RETURNING model", logger: logger
        ).collect()
        return !rows.isEmpty
    }

    // MARK: - Reading

    /// The latest fit, if any.
    public func latestFit() async throws -> StoredCalibrationFit? {
        let rows = try await client.query(
            """
            SELECT id, fitted_at, cells, observations, scale_db::float8, changed_models, changed_devices, queued_venues
            FROM calibration_fits ORDER BY id DESC LIMIT 1
            """,
            logger: logger)
        for try await (id, at, cells, observations, scale, models, devices, venues) in rows.decode(
            (Int64, Date, Int, Int, Double?, Int, Int, Int).self)
        {
            return StoredCalibrationFit(
                id: id, fittedAt: at, cells: cells, observations: observations, scaleDB: scale, changedModels: models,
                changedDevices: devices, queuedVenues: venues)
        }
        return nil
    }

    /// Every model known (from devices, fits, references or overrides), by name.
    public func models() async throws -> [ModelCalibration] {
        var byModel: [String: ModelCalibration] = [:]
        func entry(_ model: String) -> ModelCalibration {
            byModel[model] ?? ModelCalibration(model: model, devices: 0, references: [])
        }
        let devices = try await client.query(
            "SELECT model, count(*) FROM devices WHERE model IS NOT NULL GROUP BY model", logger: logger)
        for try await (model, count) in devices.decode((String, Int64).self) {
            var calibration = entry(model)
            calibration.devices = Int(count)
            byModel[model] = calibration
        }
        let fits = try await client.query(
            """
            SELECT model, offset_db::float8, standard_error_db::float8, checkins, devices, component, anchored, status
            FROM calibration_fit_models WHERE fit_id = (SELECT max(id) FROM calibration_fits)
            """,
            logger: logger)
        for try await (model, offset, error, checkins, devices, component, anchored, status) in fits.decode(
            (String, Double, Double?, Int, Int, String, Bool, String).self)
        {
            var calibration = entry(model)
            calibration.crowd = ModelOffsetFit(
                model: model, offsetDB: offset, standardErrorDB: error, checkins: checkins, devices: devices,
                component: component, anchored: anchored,
                status: ModelOffsetFit.Status(rawValue: status) ?? .insufficientEvidence)
            byModel[model] = calibration
        }
        let inForce = try await client.query(
            "SELECT model, offset_db::float8, source FROM device_model_offsets", logger: logger)
        for try await (model, offset, source) in inForce.decode((String, Double, String).self) {
            var calibration = entry(model)
            calibration.inForce = ModelOffsetInForce(
                model: model, offsetDB: offset, source: ModelOffsetSource(rawValue: source) ?? .override)
            byModel[model] = calibration
        }
        let overrides = try await client.query(
            "SELECT model, offset_db::float8, note, set_by, set_at FROM model_offset_overrides", logger: logger)
        for try await (model, offset, note, by, at) in overrides.decode((String, Double, String?, String, Date).self) {
            var calibration = entry(model)
            calibration.override = (offset, note, by, at)
            byModel[model] = calibration
        }
        for reference in try await references(model: nil) {
            var calibration = entry(reference.model)
            calibration.references.append(reference)
            byModel[reference.model] = calibration
        }
        return byModel.values.sorted { $0.model < $1.model }
    }

    /// Reference calibrations, newest first (of one model, or all), withdrawn ones included.
    public func references(model: String?) async throws -> [ReferenceCalibration] {
        let rows = try await client.query(
            """
            SELECT id, model, method, absolute_offset_db::float8, detail::text, created_at, created_by, withdrawn_at
            FROM reference_calibrations WHERE \(model)::text IS NULL OR model = \(model)::text
            ORDER BY created_at DESC, id DESC
            """,
            logger: logger)
        var references: [ReferenceCalibration] = []
        for try await (id, model, method, offset, detail, at, by, withdrawn) in rows.decode(
            (Int64, String, String, Double, String, Date, String, Date?).self)
        {
            references.append(
                ReferenceCalibration(
                    id: id, model: model, method: ReferenceCalibration.Method(rawValue: method) ?? .tone,
                    absoluteOffsetDB: offset, detail: detail, createdAt: at, createdBy: by, withdrawnAt: withdrawn))
        }
        return references
    }
}

extension CalibrationRepository {
    /// A check-in's per-second levels (its samples' average dBFS, by whole second since 1970)
    /// and its device's model; `nil` when no check-in has that id.
    public func checkinSeconds(id: UUID) async throws -> (model: String?, seconds: [Int64: Double])? {
        let rows = try await client.query(
            """
            SELECT d.model, c.started_at, c.samples
            FROM checkins c JOIN devices d ON d.id = c.device_id
            WHERE c.id = \(id)
            """,
            logger: logger)
        for try await (model, start, column) in rows.decode((String?, Date, ByteBuffer?).self) {
            // None once the retention removed them.
            let samples = try SampleSeries.column(column) ?? .removed
            var seconds: [Int64: Double] = [:]
            let origin = start.timeIntervalSince1970
            for (offset, level) in zip(samples.offsetsSeconds, samples.averageDBFS) {
                seconds[Int64((origin + Double(offset)).rounded(.down))] = Double(level)
            }
            return (model, seconds)
        }
        return nil
    }
}
