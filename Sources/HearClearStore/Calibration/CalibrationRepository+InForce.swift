import Foundation
import HearClearModel
import Logging
import LoudnessCore
import PostgresNIO

/// What a fit over time writes in force (``CalibrationRepository/apply(_:inForce:overrides:on:logger:)``).
extension CalibrationRepository {
    /// `device_model_offsets`: each model's offset in force from its step (if any) and before;
    /// answers the models whose offset moved by ``changeThresholdDB`` or whose step is new.
    static func writeModels(
        _ result: CrowdFitOverTime.Result, inForce: [String: ModelOffsetInForce], fitID: Int64,
        on connection: PostgresConnection, logger: Logger
    ) async throws -> [String] {
        let current = try await connection.query(
            """
            SELECT model, offset_db::float8, CASE WHEN since = '-infinity' THEN NULL ELSE since END,
                   earlier_offset_db::float8
            FROM device_model_offsets
            """,
            logger: logger)
        var before: [String: (offset: Double, since: Date, earlier: Double)] = [:]
        for try await (model, offset, since, earlier) in current.decode((String, Double, Date?, Double).self) {
            before[model] = (offset, since ?? .distantPast, earlier)
        }
        // A model's step, from its group without an OS (an update it did not report).
        let steps = Dictionary(
            result.groups.filter { $0.os == nil && $0.step != nil }.map { ($0.model, $0) },
            uniquingKeysWith: { first, _ in first })
        let rows = inForce.values.sorted { $0.model < $1.model }.map { row -> (ModelOffsetInForce, Date, Double) in
            guard row.source == .crowd, let stepped = steps[row.model] else {
                return (row, Date.distantPast, row.offsetDB)
            }
            return (row, Date(timeIntervalSince1970: stepped.since), stepped.earlierOffsetDB)
        }
        let changed = Set(before.keys).union(inForce.keys).filter { model in
            let old = before[model]
            let new = rows.first { $0.0.model == model }
            return abs((old?.offset ?? 0) - (new?.0.offsetDB ?? 0)) >= changeThresholdDB
                || abs((old?.earlier ?? 0) - (new?.2 ?? 0)) >= changeThresholdDB
                || (old?.since ?? .distantPast) != (new?.1 ?? .distantPast)
        }
        // A move under the threshold keeps the value in force (its venues are not judged again).
        let kept = rows.map { row in
            var (offset, since, earlier) = (row.0.offsetDB, row.1, row.2)
            if !changed.contains(row.0.model), let old = before[row.0.model] {
                (offset, since, earlier) = (old.offset, old.since, old.earlier)
            }
            return (row.0, offset, since, earlier)
        }
        try await connection.query(
            """
            WITH wanted AS (
                SELECT * FROM unnest(\(kept.map(\.0.model))::text[], \(kept.map { Float($0.1) })::real[],
                                     \(kept.map(\.0.source.rawValue))::text[], \(kept.map(\.2))::timestamptz[],
                                     \(kept.map { Float($0.3) })::real[])
                  AS w(model, offset_db, source, since, earlier)),
            gone AS (DELETE FROM device_model_offsets o WHERE NOT EXISTS (SELECT 1 FROM wanted w WHERE w.model = o.model))
            INSERT INTO device_model_offsets (model, offset_db, source, fit_id, note, updated_at, since, earlier_offset_db)
            SELECT w.model, w.offset_db, w.source, \(fitID), NULL, now(),
                   CASE WHEN w.since <= '1971-01-01' THEN '-infinity'::timestamptz ELSE w.since END, w.earlier
            FROM wanted w
            ON CONFLICT (model) DO UPDATE SET
                offset_db = EXCLUDED.offset_db, source = EXCLUDED.source, fit_id = EXCLUDED.fit_id, updated_at = now(),
                since = EXCLUDED.since, earlier_offset_db = EXCLUDED.earlier_offset_db
            """,
            logger: logger)
        return changed.sorted()
    }

    /// `device_model_os_offsets`: each fitted OS version of a model without an admin's override;
    /// answers the models one of whose versions moved, appeared or went.
    static func writeOSOffsets(
        _ result: CrowdFitOverTime.Result, overrides: [String: Double], fitID: Int64,
        on connection: PostgresConnection, logger: Logger
    ) async throws -> [String] {
        let current = try await connection.query(
            "SELECT model, os, offset_db::float8 FROM device_model_os_offsets", logger: logger)
        var before: [String: Double] = [:]
        for try await (model, os, offset) in current.decode((String, String, Double).self) {
            before["\(model)\u{1F}\(os)"] = offset
        }
        let rows = result.groups.filter { group in
            group.os != nil && group.fit.status == .fitted && overrides[group.model] == nil
        }
        var after: [String: Double] = [:]
        for row in rows { after["\(row.model)\u{1F}\(row.os ?? "")"] = row.fit.offsetDB }
        let changed = Set(before.keys).union(after.keys).filter { key in
            abs((before[key] ?? .infinity) - (after[key] ?? .infinity)) >= changeThresholdDB
                || (before[key] == nil) != (after[key] == nil)
        }
        try await connection.query("DELETE FROM device_model_os_offsets", logger: logger)
        if !rows.isEmpty {
            try await connection.query(
                """
                INSERT INTO device_model_os_offsets (model, os, offset_db, checkins, fit_id)
                SELECT r.model, r.os, r.offset_db, r.checkins, \(fitID)
                FROM unnest(\(rows.map(\.model))::text[], \(rows.map { $0.os ?? "" })::text[],
                            \(rows.map { Float($0.fit.offsetDB) })::real[], \(rows.map { Int32($0.fit.checkins) })::integer[])
                  AS r(model, os, offset_db, checkins)
                """,
                logger: logger)
        }
        return changed.map { String($0.split(separator: "\u{1F}").first ?? "") }
    }

    /// `device_offsets`: each device's own offset from its step (if any) and before, and the
    /// step; answers the devices whose offsets moved or whose step is new.
    static func writeDevices(
        _ result: CrowdFitOverTime.Result, fitID: Int64, on connection: PostgresConnection, logger: Logger
    ) async throws -> [Int64] {
        let devices = result.devices.filter {
            abs($0.offsetDB) >= 0.01 || abs($0.earlierOffsetDB) >= 0.01 || $0.step != nil
        }
        let fits = Dictionary(result.fit.devices.map { ($0.device, $0) }, uniquingKeysWith: { first, _ in first })
        let threshold = Float(changeThresholdDB)
        let rows = try await connection.query(
            """
            WITH wanted AS (
                SELECT * FROM unnest(\(devices.map(\.device))::bigint[], \(devices.map { Float($0.offsetDB) })::real[],
                                     \(devices.map { Float($0.earlierOffsetDB) })::real[],
                                     \(devices.map { Float(fits[$0.device]?.standardErrorDB ?? .nan) })::real[],
                                     \(devices.map { Int32(fits[$0.device]?.checkins ?? 0) })::integer[],
                                     \(devices.map { Date(timeIntervalSince1970: $0.step?.at ?? 0) })::timestamptz[],
                                     \(devices.map { Float($0.step?.shiftDB ?? .nan) })::real[],
                                     \(devices.map { Date(timeIntervalSince1970: $0.step?.detectedAt ?? 0) })::timestamptz[],
                                     \(devices.map { $0.step != nil })::boolean[])
                  AS w(device_id, offset_db, earlier, error, checkins, since, step, detected, stepped)),
            moved AS (
                SELECT coalesce(w.device_id, o.device_id) AS device_id
                FROM wanted w FULL JOIN device_offsets o ON o.device_id = w.device_id
                WHERE abs(coalesce(w.offset_db, 0) - coalesce(o.offset_db, 0)) >= \(threshold)
                   OR abs(coalesce(w.earlier, 0) - coalesce(o.earlier_offset_db, 0)) >= \(threshold)
                   OR coalesce(w.stepped, false) <> (o.step_db IS NOT NULL)
                   OR (w.stepped AND o.since IS DISTINCT FROM w.since)),
            gone AS (DELETE FROM device_offsets o WHERE NOT EXISTS (SELECT 1 FROM wanted w WHERE w.device_id = o.device_id)),
            written AS (
                INSERT INTO device_offsets (device_id, offset_db, standard_error_db, checkins, fit_id, since,
                                            earlier_offset_db, step_db, step_detected_at)
                SELECT w.device_id, w.offset_db, NULLIF(w.error, 'NaN'::real), w.checkins, \(fitID),
                       CASE WHEN w.stepped THEN w.since ELSE '-infinity'::timestamptz END, w.earlier,
                       CASE WHEN w.stepped THEN w.step END, CASE WHEN w.stepped THEN w.detected END
                FROM wanted w
                ON CONFLICT (device_id) DO UPDATE SET
                    offset_db = EXCLUDED.offset_db, earlier_offset_db = EXCLUDED.earlier_offset_db,
                    standard_error_db = EXCLUDED.standard_error_db, checkins = EXCLUDED.checkins,
                    fit_id = EXCLUDED.fit_id, since = EXCLUDED.since, step_db = EXCLUDED.step_db,
                    step_detected_at = COALESCE(device_offsets.step_detected_at, EXCLUDED.step_detected_at)
                RETURNING 1)
            SELECT array_agg(device_id) FROM moved WHERE (SELECT count(*) FROM written) >= 0
            """,
            logger: logger
        ).collect()
        return try rows.first.flatMap { try $0.decode([Int64]?.self) } ?? []
    }

    /// `device_trust`: every device the fit judged; answers those whose trust moved by
    /// ``trustThreshold`` (a device new to the table from the floor counts as moved when it left it).
    static func writeTrust(
        _ result: CrowdFitOverTime.Result, fitID: Int64, on connection: PostgresConnection, logger: Logger
    ) async throws -> [Int64] {
        let devices = result.devices
        guard !devices.isEmpty else { return [] }
        let rows = try await connection.query(
            """
            WITH wanted AS (
                SELECT * FROM unnest(\(devices.map(\.device))::bigint[], \(devices.map { Float($0.standing.trust) })::real[],
                                     \(devices.map { Float($0.standing.agreements) })::real[],
                                     \(devices.map { Int32($0.standing.recentDisagreements) })::integer[],
                                     \(devices.map { Int32($0.standing.checkins) })::integer[],
                                     \(devices.map { Int32(max($0.venues, 1)) })::integer[])
                  AS w(device_id, trust, agreements, disagreements, checkins, venues)),
            moved AS (
                SELECT w.device_id FROM wanted w LEFT JOIN device_trust t ON t.device_id = w.device_id
                WHERE abs(w.trust - coalesce(t.trust, \(Float(DeviceTrust.floor)))) >= \(Float(trustThreshold))),
            written AS (
                INSERT INTO device_trust (device_id, trust, agreements, recent_disagreements, checkins, venues, fit_id,
                                          updated_at)
                SELECT w.device_id, w.trust, w.agreements, w.disagreements, w.checkins, w.venues, \(fitID), now()
                FROM wanted w
                ON CONFLICT (device_id) DO UPDATE SET
                    trust = EXCLUDED.trust, agreements = EXCLUDED.agreements,
                    recent_disagreements = EXCLUDED.recent_disagreements, checkins = EXCLUDED.checkins,
                    venues = EXCLUDED.venues, fit_id = EXCLUDED.fit_id, updated_at = now()
                RETURNING 1)
            SELECT array_agg(device_id) FROM moved WHERE (SELECT count(*) FROM written) >= 0
            """,
            logger: logger
        ).collect()
        return try rows.first.flatMap { try $0.decode([Int64]?.self) } ?? []
    }

    /// Queues for a full read every venue with check-ins of `models` or `devices`; answers how many.
    static func queueVenues(models: [String], devices: [Int64], on connection: PostgresConnection, logger: Logger)
        async throws -> Int
    {
        guard !models.isEmpty || !devices.isEmpty else { return 0 }
        let queueing = AggregationQueue.enqueueing(from: "affected", oneNotification: true)
        return try await connection.query(
            """
            WITH affected AS (
                SELECT DISTINCT c.venue_id
                FROM checkins c JOIN devices d ON d.id = c.device_id
                WHERE d.model = ANY(\(models)) OR d.id = ANY(\(Array(Set(devices)).sorted()))),
            \(unescaped: queueing.definitions)
            SELECT \(unescaped: queueing.sentCount)
            """,
            logger: logger
        ).collect().first.map { Int(try $0.decode(Int64.self)) } ?? 0
    }
}
