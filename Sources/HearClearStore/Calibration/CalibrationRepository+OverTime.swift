import Foundation
import HearClearModel
import Logging
import LoudnessCore
import PostgresNIO

/// The crowd calibration over time (docs/ARCHITECTURE.md, "Phones that drift", "Devices that earn
/// trust"): its evidence piece by piece, the devices' trust, and what a fit puts in force.
extension CalibrationRepository {
    /// Days of evidence a fit reads: with its 60-day half-life, older pieces weigh under 2 %.
    public static let evidenceDays = 365
    /// A device's trust that moves less than this leaves its venues as they were judged.
    public static let trustThreshold = 0.05

    /// Every piece the judgement accepted (counted or outlier) of the last ``evidenceDays`` days,
    /// ≥ 10 valid seconds, of devices with a model that are not excluded, in venue-hours that at
    /// least two devices measured: its venue, hour, the venue's period (changes in force before
    /// it), device, model, OS and time, and its raw level.
    static func pieces(on connection: PostgresConnection, logger: Logger) async throws -> [CrowdPiece] {
        let rows = try await connection.query(
            """
            WITH accepted AS (
                SELECT h.venue_id, h.weekday, h.hour, h.device_id, h.checkin_id, h.leq_dbfs
                FROM checkin_hours h
                WHERE (h.counted OR h.outlier) AND h.valid_seconds >= 10),
            shared AS (
                SELECT venue_id, weekday, hour FROM accepted
                GROUP BY venue_id, weekday, hour HAVING count(DISTINCT device_id) >= 2),
            used AS (SELECT a.* FROM accepted a JOIN shared USING (venue_id, weekday, hour))
            SELECT u.venue_id, u.weekday, u.hour, c.started_at, u.device_id, d.model, c.device_os,
                   u.leq_dbfs::float8,
                   (SELECT count(*) FROM venue_changes v
                    WHERE v.venue_id = u.venue_id AND v.status = 'in_force' AND v.changed_at <= c.started_at)::integer
            FROM used u
            JOIN checkins c ON c.id = u.checkin_id
            JOIN devices d ON d.id = u.device_id
            WHERE d.model IS NOT NULL AND NOT d.excluded
              AND c.started_at > now() - make_interval(days => \(Int32(evidenceDays))::integer)
            """,
            logger: logger)
        var pieces: [CrowdPiece] = []
        for try await (venue, weekday, hour, start, device, model, os, level, period) in rows.decode(
            (Int64, Int16, Int16, Date, Int64, String, String?, Double, Int32).self)
        {
            pieces.append(
                CrowdPiece(
                    venue: venue, cell: LocalHour(weekday: Int(weekday), hour: Int(hour)), period: Int(period),
                    device: device, model: model, os: os, time: start.timeIntervalSince1970, levelDBFS: level))
        }
        return pieces
    }

    /// The devices' trust as the last fit left it.
    static func trust(on connection: PostgresConnection, logger: Logger) async throws -> [Int64: Double] {
        let rows = try await connection.query("SELECT device_id, trust::float8 FROM device_trust", logger: logger)
        var trust: [Int64: Double] = [:]
        for try await (device, value) in rows.decode((Int64, Double).self) { trust[device] = value }
        return trust
    }

    /// Stores a fit over time and puts it in force: the models' offsets (with their steps), their
    /// OS versions', the devices' (with theirs) and their trust; queues for a full read every
    /// venue with check-ins of a model, OS version or device whose offset or trust moved.
    static func apply(
        _ result: CrowdFitOverTime.Result, inForce: [String: ModelOffsetInForce], overrides: [String: Double],
        on connection: PostgresConnection, logger: Logger
    ) async throws -> AppliedCalibration {
        let fitID = try await insertFit(result, on: connection, logger: logger)
        var changedModels = try await writeModels(
            result, inForce: inForce, fitID: fitID, on: connection, logger: logger)
        changedModels += try await writeOSOffsets(
            result, overrides: overrides, fitID: fitID, on: connection, logger: logger)
        let moved = try await writeDevices(result, fitID: fitID, on: connection, logger: logger)
        let trusted = try await writeTrust(result, fitID: fitID, on: connection, logger: logger)
        try await connection.query("UPDATE calibration_state SET fit_id = \(fitID)", logger: logger)
        let models = Array(Set(changedModels)).sorted()
        let queued = try await queueVenues(models: models, devices: moved + trusted, on: connection, logger: logger)
        try await connection.query(
            """
            UPDATE calibration_fits
            SET changed_models = \(models.count), changed_devices = \(moved.count), queued_venues = \(queued)
            WHERE id = \(fitID)
            """,
            logger: logger)
        return AppliedCalibration(
            fitID: fitID, changedModels: models, changedDevices: moved.count, queuedVenues: queued,
            changedTrust: trusted.count, deviceSteps: result.devices.count { $0.step != nil },
            modelSteps: result.groups.count { $0.step != nil })
    }

    /// The fit and its estimate per model: the model's group without an OS (else its group with the
    /// most evidence), and every OS version's in `os_offsets`.
    private static func insertFit(_ result: CrowdFitOverTime.Result, on connection: PostgresConnection, logger: Logger)
        async throws -> Int64
    {
        let fit = result.fit
        let fitID =
            try await connection.query(
                """
                INSERT INTO calibration_fits (cells, observations, iterations, scale_db)
                VALUES (\(fit.cells), \(fit.observations), \(fit.iterations), \(fit.scaleDB.map(Float.init)))
                RETURNING id
                """,
                logger: logger
            ).collect().first?.decode(Int64.self) ?? 0
        let models = modelRows(result.groups)
        guard !models.isEmpty else { return fitID }
        try await connection.query(
            """
            INSERT INTO calibration_fit_models (
                fit_id, model, offset_db, standard_error_db, checkins, devices, component, anchored, status, os_offsets)
            SELECT \(fitID), m.model, m.offset_db, NULLIF(m.error, 'NaN'::real), m.checkins, m.devices, m.component,
                   m.anchored, m.status, NULLIF(m.os, '')::jsonb
            FROM unnest(\(models.map(\.fit.model))::text[], \(models.map { Float($0.fit.offsetDB) })::real[],
                        \(models.map { Float($0.fit.standardErrorDB ?? .nan) })::real[],
                        \(models.map { Int32($0.fit.checkins) })::integer[], \(models.map { Int32($0.fit.devices) })::integer[],
                        \(models.map(\.fit.component))::text[], \(models.map(\.fit.anchored))::boolean[],
                        \(models.map(\.fit.status.rawValue))::text[], \(models.map(\.osJSON))::text[])
              AS m(model, offset_db, error, checkins, devices, component, anchored, status, os)
            """,
            logger: logger)
        return fitID
    }

    /// One row a model for `calibration_fit_models`, its OS versions' fits as JSON.
    public static func modelRows(_ groups: [CrowdFitOverTime.Group]) -> [(fit: ModelOffsetFit, osJSON: String)] {
        Dictionary(grouping: groups, by: \.model).sorted { $0.key < $1.key }.compactMap { model, groups in
            guard
                let main = groups.first(where: { $0.os == nil })
                    ?? groups.max(by: { $0.fit.checkins < $1.fit.checkins })
            else { return nil }
            let versions = groups.filter { $0.os != nil }.map { group in
                [
                    "os": group.os ?? "", "offsetDb": (group.fit.offsetDB * 100).rounded() / 100,
                    "checkins": group.fit.checkins, "status": group.fit.status.rawValue,
                ] as [String: Any]
            }
            let data = (try? JSONSerialization.data(withJSONObject: versions, options: [.sortedKeys])) ?? Data()
            return (main.fit, versions.isEmpty ? "" : String(decoding: data, as: UTF8.self))
        }
    }
}
