import Foundation
import HearClearModel
import Logging
import LoudnessCore
import PostgresNIO

/// Reads a venue's check-ins for the aggregation worker and writes its judgement back. Both run
/// on the connection of the worker's transaction (see ``AggregationQueue``).
public struct AggregationRepository: Sendable {
    let logger: Logger

    public init(logger: Logger) {
        self.logger = logger
    }

    /// A venue as the worker reads it before its check-ins: its key, zone, and the version of its
    /// stored judgement (`venue_activity.judgement_version`, raised by every ``write(_:on:)``).
    public struct Header: Sendable, Equatable {
        public var venueID: Int64
        public var timezone: String?
        public var judgementVersion: Int64
    }

    /// The headers of the venues that exist among `venueIDs`.
    public func headers(venueIDs: [Int64], on connection: PostgresConnection) async throws -> [Int64: Header] {
        let rows = try await connection.query(
            """
            SELECT v.id, v.timezone, COALESCE(a.judgement_version, 0)
            FROM venues v LEFT JOIN venue_activity a ON a.venue_id = v.id
            WHERE v.id = ANY(\(venueIDs))
            """,
            logger: logger)
        var headers: [Int64: Header] = [:]
        for try await (id, timezone, version) in rows.decode((Int64, String?, Int64).self) {
            headers[id] = Header(venueID: id, timezone: timezone, judgementVersion: version)
        }
        return headers
    }

    /// The check-ins of the venues, by venue, oldest first: all of them when `only` is nil, else
    /// those of `only` (the check-ins their queue entries name) not cleaned yet. Raw samples are
    /// read only for check-ins not cleaned yet; the others come with their stored cleaning and
    /// judgement.
    public func checkins(
        venueIDs: [Int64], only: [AggregationQueue.QueuedCheckin]? = nil, on connection: PostgresConnection
    ) async throws -> [Int64: [AggregationInput.Checkin]] {
        guard !venueIDs.isEmpty, only?.isEmpty != true else { return [:] }
        let hours = only != nil ? [:] : try await storedHours(venueIDs: venueIDs, on: connection)
        let rows = try await connection.query(Self.checkinsQuery(venueIDs: venueIDs, only: only), logger: logger)
        var checkins: [Int64: [AggregationInput.Checkin]] = [:]
        for try await row in rows {
            var column = ColumnReader(row)
            let venueID: Int64 = try column.next()
            let id: UUID = try column.next()
            let startedAt: Date = try column.next()
            let receivedAt: Date = try column.next()
            let deviceKey: Int64 = try column.next()
            let deviceExcluded: Bool = try column.next()
            let modelOffset: Double = try column.next()
            let receiptReasons = try column.next([String].self).map(JudgementReason.init(rawValue:))
            let cleaned: Bool = try column.next()
            let cleanExclusion = try column.next(String?.self).map(JudgementReason.init(rawValue:))
            let validSeconds: Int = try column.next()
            let level: Float? = try column.next()
            let status = try CheckinStatus(stored: try column.next())
            let reasons = try column.next([String].self).map(JudgementReason.init(rawValue:))
            let samples = try SampleSeries.column(try column.next(ByteBuffer?.self))
            let zones: [Int16]? = try column.next()
            let adminDecision: String? = try column.next()
            let classOffsets: [Int32]? = try column.next()
            let classSeconds: [Int16]? = try column.next()
            let classIndexes: [Int16]? = try column.next()
            let trust: Double? = try column.next()
            let venues: Int32? = try column.next()
            var raw: AggregationInput.Raw?
            var stored: AggregationInput.Stored?
            if cleaned {
                stored = .init(
                    cleanExclusion: cleanExclusion, validSeconds: validSeconds, levelDBFS: level.map(Double.init),
                    status: status, reasons: reasons, hours: hours[id] ?? [])
            } else if let samples, let zones {
                raw = .init(
                    offsetsSeconds: samples.offsetsSeconds, utcOffsetsMinutes: zones, averageDBFS: samples.averageDBFS,
                    peakDBFS: samples.peakDBFS, lceqDdB: samples.lceqDdB, bandIndexes: samples.bandIndexes,
                    bandsDdB: samples.bandsDdB,
                    phoneClasses: try Self.phoneClasses(
                        offsets: classOffsets, seconds: classSeconds, classes: classIndexes))
            }
            checkins[venueID, default: []].append(
                .init(
                    id: id, startedAt: startedAt, receivedAt: receivedAt, deviceKey: deviceKey,
                    deviceExcluded: deviceExcluded, modelOffsetDB: modelOffset, receiptReasons: receiptReasons,
                    raw: raw, stored: stored, adminDecision: adminDecision.flatMap(AggregationInput.AdminDecision.init),
                    deviceTrust: trust, deviceVenues: venues.map(Int.init))
            )
        }
        return checkins
    }

    /// The statement of ``checkins(venueIDs:only:on:)`` (its plan is tested). New check-ins are
    /// found by their keys (the starts too, so only their months' partitions are read), not by
    /// an index on `cleaned_at`: the judgement sets it, and no index of `checkins` may name a
    /// column the judgement sets, or its update could not be HOT (migration 0023).
    static func checkinsQuery(venueIDs: [Int64], only: [AggregationQueue.QueuedCheckin]?) -> PostgresQuery {
        guard let only else {
            return """
                \(unescaped: checkinsSelect)
                WHERE c.venue_id = ANY(\(venueIDs))
                ORDER BY c.venue_id, c.started_at, c.id
                """
        }
        return """
            \(unescaped: checkinsSelect)
            WHERE c.venue_id = ANY(\(venueIDs)) AND c.started_at = ANY(\(only.map(\.startedAt)))
              AND c.id = ANY(\(only.map(\.id))) AND c.cleaned_at IS NULL
            ORDER BY c.venue_id, c.started_at, c.id
            """
    }

    /// The offset in force at each check-in's time: its model's for its OS version where the crowd
    /// fitted one, else its model's (the step's `earlier_offset_db` before `since`), plus its
    /// device's own likewise (docs/ARCHITECTURE.md, "Phones that drift").
    private static let checkinsSelect = """
        SELECT c.venue_id, c.id, c.started_at, c.received_at, c.device_id, d.excluded,
               (COALESCE(mo.offset_db,
                         CASE WHEN c.started_at >= o.since THEN o.offset_db ELSE o.earlier_offset_db END, 0)
                + COALESCE(CASE WHEN c.started_at >= e.since THEN e.offset_db ELSE e.earlier_offset_db END, 0)
               )::float8,
               COALESCE(c.receipt_reasons, '{}'),
               c.cleaned_at IS NOT NULL, c.clean_exclusion, COALESCE(c.valid_seconds, 0), c.level_dbfs, c.status,
               COALESCE(c.reasons, '{}'),
               CASE WHEN c.cleaned_at IS NULL THEN c.samples END,
               CASE WHEN c.cleaned_at IS NULL THEN COALESCE(c.utc_offsets_min, ARRAY[c.utc_offset_min]) END,
               a.decision,
               CASE WHEN c.cleaned_at IS NULL THEN c.class_window_offsets_s END,
               CASE WHEN c.cleaned_at IS NULL THEN c.class_window_seconds END,
               CASE WHEN c.cleaned_at IS NULL THEN c.class_window_classes END,
               t.trust::float8, t.venues
        FROM checkins c
        JOIN devices d ON d.id = c.device_id
        LEFT JOIN device_model_offsets o ON o.model = d.model
        LEFT JOIN device_model_os_offsets mo ON mo.model = d.model AND mo.os = c.device_os
        LEFT JOIN device_offsets e ON e.device_id = d.id
        LEFT JOIN device_trust t ON t.device_id = d.id
        LEFT JOIN checkin_overrides a ON a.checkin_id = c.id
        """

    /// The stored `class_window_*` arrays as pooling needs them; nil for none.
    static func phoneClasses(offsets: [Int32]?, seconds: [Int16]?, classes: [Int16]?) throws -> PhoneClassWindows? {
        guard let offsets, let seconds, let classes else { return nil }
        guard let windows = PhoneClassWindows(offsetsSeconds: offsets, seconds: seconds, classIndexes: classes) else {
            throw StoreError.unexpected("check-in class windows that do not line up")
        }
        return windows
    }

    /// The hour rows of the venues' check-ins, by check-in (only those of cleaned check-ins are
    /// used: the others are cleaned again).
    private func storedHours(venueIDs: [Int64], on connection: PostgresConnection) async throws
        -> [UUID: [AggregationResult.Hour]]
    {
        let rows = try await connection.query(
            """
            SELECT \(unescaped: AggregationResult.Hour.columns)
            FROM checkin_hours h WHERE h.venue_id = ANY(\(venueIDs))
            ORDER BY h.checkin_id, h.weekday, h.hour
            """,
            logger: logger)
        var hours: [UUID: [AggregationResult.Hour]] = [:]
        for try await row in rows {
            var columns = ColumnReader(row)
            let hour = try AggregationResult.Hour(reading: &columns)
            hours[hour.checkinID, default: []].append(hour)
        }
        return hours
    }

    /// Writes what changed for every venue of a batch: the judgements given, the hour rows of newly
    /// cleaned check-ins (replacing any old ones), the changed hour rows of the others, the cells,
    /// and the venues' activity; raises each venue's judgement version and returns the new ones.
    /// Optional numbers travel as NaN in the arrays (PostgresNIO binds no NULL array elements)
    /// and reasons as one comma-joined string per check-in (they are identifiers).
    @discardableResult
    public func write(_ results: [AggregationResult], on connection: PostgresConnection) async throws
        -> [Int64: Int64]
    {
        guard !results.isEmpty else { return [:] }
        let judgements = results.flatMap { result in result.judgements.map { (result.venueID, $0) } }
        if !judgements.isEmpty {
            try await connection.query(Self.judgementsQuery(judgements), logger: logger)
        }
        let newlyCleaned = judgements.filter(\.1.newlyCleaned).map(\.1.checkinID)
        if !newlyCleaned.isEmpty {
            try await connection.query(
                "DELETE FROM checkin_hours WHERE checkin_id = ANY(\(newlyCleaned))", logger: logger)
        }
        try await insertHours(
            results.flatMap { result in result.newHours.map { (result.venueID, $0) } }, on: connection)
        try await updateHours(results.flatMap(\.changedHours), on: connection)
        try await writeCells(results, on: connection)
        try await writeChanges(results, on: connection)
        try await writeCampaigns(results, on: connection)
        return try await touchVenues(results, on: connection)
    }

    /// The statement that stores the judgements of ``write(_:on:)``, by venue (its plan is tested).
    static func judgementsQuery(_ judgements: [(Int64, AggregationResult.Judgement)]) -> PostgresQuery {
        """
        UPDATE checkins AS c SET
            status = u.status,
            reasons = CASE WHEN u.reasons = '' THEN NULL ELSE string_to_array(u.reasons, ',') END,
            level_dbfs = NULLIF(u.level, 'NaN'::real), valid_seconds = u.valid, judged_at = now(),
            cleaned_at = CASE WHEN u.newly THEN now() ELSE c.cleaned_at END,
            clean_exclusion = CASE WHEN u.newly THEN NULLIF(u.clean, '') ELSE c.clean_exclusion END
        FROM unnest(\(judgements.map(\.1.checkinID))::uuid[], \(judgements.map(\.1.startedAt))::timestamptz[],
                    \(judgements.map(\.0))::bigint[],
                    \(judgements.map(\.1.status.rawValue))::text[],
                    \(judgements.map { $0.1.reasons.map(\.rawValue).joined(separator: ",") })::text[],
                    \(judgements.map { Float($0.1.levelDBFS ?? .nan) })::real[],
                    \(judgements.map { Int32($0.1.validSeconds) })::integer[],
                    \(judgements.map(\.1.newlyCleaned))::boolean[],
                    \(judgements.map { $0.1.cleanExclusion?.rawValue ?? "" })::text[])
             AS u(id, started, venue, status, reasons, level, valid, newly, clean)
        -- The starts as a list too: PostgreSQL then reads only those months' partitions.
        WHERE c.started_at = ANY(\(judgements.map(\.1.startedAt))) AND c.id = ANY(\(judgements.map(\.1.checkinID)))
          AND c.id = u.id AND c.started_at = u.started AND c.venue_id = u.venue
        """
    }

    /// Raises every venue's judgement version and moves its activity to its newest check-in (only
    /// forward: a late retry never makes a venue look older; `greatest` ignores the NULL of a
    /// venue without check-ins), and NOTIFYs each venue's read change; returns the new versions.
    private func touchVenues(_ results: [AggregationResult], on connection: PostgresConnection) async throws
        -> [Int64: Int64]
    {
        let notifying = ReadChange.notifyingVenues(from: "touched")
        let rows = try await connection.query(
            """
            WITH touched AS (
                UPDATE venue_activity AS a SET
                    judgement_version = a.judgement_version + 1,
                    activity_at = greatest(a.activity_at, u.last), last_checkin_at = greatest(a.last_checkin_at, u.last)
                FROM unnest(\(results.map(\.venueID))::bigint[], \(results.map { $0.lastReceivedAt != nil })::boolean[],
                            \(results.map { $0.lastReceivedAt ?? Date(timeIntervalSince1970: 0) })::timestamptz[])
                       AS r(venue, known, received),
                     LATERAL (SELECT CASE WHEN r.known THEN r.received END AS last) AS u
                WHERE a.venue_id = r.venue
                RETURNING a.venue_id, a.judgement_version),
            \(unescaped: notifying.definitions)
            SELECT venue_id, judgement_version FROM touched WHERE \(unescaped: notifying.sentCount) >= 0
            """,
            logger: logger)
        var versions: [Int64: Int64] = [:]
        for try await (venueID, version) in rows.decode((Int64, Int64).self) { versions[venueID] = version }
        return versions
    }

    private func updateHours(_ hours: [AggregationResult.Hour], on connection: PostgresConnection) async throws {
        guard !hours.isEmpty else { return }
        try await connection.query(
            """
            UPDATE checkin_hours AS h SET
                model_offset_db = u.model_offset, counted = u.counted, outlier = u.outlier,
                modified_z = NULLIF(u.z, 'NaN'::real), residual_db = NULLIF(u.residual, 'NaN'::real),
                other_devices = u.others
            FROM unnest(
                \(hours.map(\.checkinID))::uuid[], \(hours.map { Int16($0.weekday) })::smallint[],
                \(hours.map { Int16($0.hour) })::smallint[], \(hours.map { Float($0.modelOffsetDB) })::real[],
                \(hours.map(\.counted))::boolean[], \(hours.map(\.outlier))::boolean[],
                \(hours.map { Float($0.modifiedZ ?? .nan) })::real[], \(hours.map { Float($0.residualDB ?? .nan) })::real[],
                \(hours.map { Int32($0.otherDevices) })::integer[])
              AS u(checkin_id, weekday, hour, model_offset, counted, outlier, z, residual, others)
            WHERE h.checkin_id = ANY(\(hours.map(\.checkinID))) AND h.checkin_id = u.checkin_id
              AND h.weekday = u.weekday AND h.hour = u.hour
            """,
            logger: logger)
    }

    private func insertHours(
        _ rows: [(venueID: Int64, hour: AggregationResult.Hour)], on connection: PostgresConnection
    )
        async throws
    {
        guard !rows.isEmpty else { return }
        let hours = rows.map(\.hour)
        try await connection.query(
            """
            INSERT INTO checkin_hours (
                checkin_id, venue_id, device_id, weekday, hour, leq_dbfs, l10_dbfs, l50_dbfs, l90_dbfs,
                max_peak_dbfs, valid_seconds, model_offset_db, counted, outlier, modified_z, residual_db,
                other_devices, character_class_seconds, character_la_ddb, character_lc_minus_la_ddb,
                character_phone_seconds)
            SELECT h.checkin_id, h.venue_id, h.device_id, h.weekday, h.hour, h.leq, h.l10, h.l50, h.l90, h.peak,
                   h.valid, h.model_offset, h.counted, h.outlier, NULLIF(h.z, 'NaN'::real),
                   NULLIF(h.residual, 'NaN'::real), h.others, NULLIF(h.classes, '')::smallint[],
                   NULLIF(h.levels, '')::smallint[], NULLIF(h.differences, '')::smallint[],
                   CASE WHEN h.classes <> '' THEN h.phone_seconds END
            FROM unnest(
                \(hours.map(\.checkinID))::uuid[], \(rows.map(\.venueID))::bigint[], \(hours.map(\.deviceKey))::bigint[],
                \(hours.map { Int16($0.weekday) })::smallint[], \(hours.map { Int16($0.hour) })::smallint[],
                \(hours.map { Float($0.leqDBFS) })::real[], \(hours.map { Float($0.l10DBFS) })::real[],
                \(hours.map { Float($0.l50DBFS) })::real[], \(hours.map { Float($0.l90DBFS) })::real[],
                \(hours.map { Float($0.maxPeakDBFS) })::real[], \(hours.map { Int32($0.validSeconds) })::integer[],
                \(hours.map { Float($0.modelOffsetDB) })::real[], \(hours.map(\.counted))::boolean[],
                \(hours.map(\.outlier))::boolean[], \(hours.map { Float($0.modifiedZ ?? .nan) })::real[],
                \(hours.map { Float($0.residualDB ?? .nan) })::real[], \(hours.map { Int32($0.otherDevices) })::integer[],
                \(hours.map { $0.character.map { AggregationResult.Hour.arrayLiteral($0.classSeconds) } ?? "" })::text[],
                \(hours.map { $0.character.map { AggregationResult.Hour.arrayLiteral($0.levelsDdB) } ?? "" })::text[],
                \(hours.map { hour in
                    hour.character.flatMap { $0.lcMinusLaDdB.isEmpty ? nil : AggregationResult.Hour.arrayLiteral($0.lcMinusLaDdB) } ?? ""
                })::text[],
                \(hours.map { Int32($0.character?.phoneSeconds ?? 0) })::integer[])
              AS h(checkin_id, venue_id, device_id, weekday, hour, leq, l10, l50, l90, peak, valid, model_offset, counted,
                   outlier, z, residual, others, classes, levels, differences, phone_seconds)
            """,
            logger: logger)
    }

    /// Deletes the cells of the venues written in full and the cells gone from the others, then
    /// inserts or updates the given ones.
    private func writeCells(_ results: [AggregationResult], on connection: PostgresConnection) async throws {
        var replaced: [Int64] = []
        var removed: [(venueID: Int64, cell: CellPosition)] = []
        var upserted: [(venueID: Int64, cell: StoredCell)] = []
        for result in results {
            switch result.cells {
            case .replaceAll(let cells):
                replaced.append(result.venueID)
                upserted += cells.map { (result.venueID, $0) }
            case .changes(let changed, let gone):
                upserted += changed.map { (result.venueID, $0) }
                removed += gone.map { (result.venueID, $0) }
            }
        }
        if !replaced.isEmpty {
            try await connection.query("DELETE FROM loudness_cells WHERE venue_id = ANY(\(replaced))", logger: logger)
        }
        if !removed.isEmpty {
            try await connection.query(
                """
                DELETE FROM loudness_cells AS l
                USING unnest(\(removed.map(\.venueID))::bigint[], \(removed.map { Int16($0.cell.weekday) })::smallint[],
                             \(removed.map { Int16($0.cell.hour) })::smallint[]) AS r(venue_id, weekday, hour)
                WHERE l.venue_id = r.venue_id AND l.weekday = r.weekday AND l.hour = r.hour
                """,
                logger: logger)
        }
        if !upserted.isEmpty { try await upsertCells(upserted, on: connection) }
        // Search reads one row per venue (docs/ARCHITECTURE.md, "Search"): rebuilt from the cells
        // just written, for the venues whose cells changed.
        let changedVenues = Set(replaced + removed.map(\.venueID) + upserted.map(\.venueID))
        guard !changedVenues.isEmpty else { return }
        let rows = try await connection.query(
            """
            SELECT moved
            FROM refresh_venue_levels(\(changedVenues.sorted())::bigint[]) AS moved
            """,
            logger: logger)
        var moved: [Int64] = []
        for try await venueID in rows.decode(Int64.self) { moved.append(venueID) }
        guard !moved.isEmpty else { return }
        // Venues whose measured cells moved change the estimates of the venues they are within
        // reach of: judge those again (from memory: they gained no check-ins). Their measured
        // cells stay as they were, so this goes no further.
        let queueing = AggregationQueue.enqueueing(from: "neighbours", .rejudged, oneNotification: true)
        try await connection.query(
            """
            WITH neighbours AS (SELECT venue_id FROM venues_within_reach_of(\(moved)) AS venue_id),
            \(unescaped: queueing.definitions)
            SELECT \(unescaped: queueing.sentCount)
            """,
            logger: logger)
    }

    /// The measured levels (dBFS by ``LocalHour/cellIndex``, `nil` where not measured) of the
    /// venues of each venue's category near it, nearest first, at most `neighbour_count()` (12)
    /// within 3 km (`category_neighbours` in SQL), for the estimates of its empty cells. A venue
    /// without a category has none.
    public func neighbourLevels(venueIDs: [Int64], on connection: PostgresConnection) async throws
        -> [Int64: [[Double?]]]
    {
        guard !venueIDs.isEmpty else { return [:] }
        let rows = try await connection.query(
            """
            SELECT v.id, n.levels
            FROM venues v
            CROSS JOIN LATERAL (
                SELECT \(unescaped: VenueSearchRepository.measuredLevelsWithoutNulls) AS levels, c.distance
                FROM category_neighbours(v.category, v.location) AS c
                JOIN venue_levels s ON s.venue_id = c.venue_id
                WHERE c.venue_id <> v.id
                ORDER BY c.distance, c.venue_id
                LIMIT neighbour_count()) AS n
            WHERE v.id = ANY(\(venueIDs))
            ORDER BY v.id, n.distance
            """,
            logger: logger)
        var neighbours: [Int64: [[Double?]]] = [:]
        for try await (venueID, levels) in rows.decode((Int64, [Double]).self) {
            neighbours[venueID, default: []].append(VenueSearchRepository.measuredLevels(levels))
        }
        return neighbours
    }

    private func upsertCells(_ upserted: [(venueID: Int64, cell: StoredCell)], on connection: PostgresConnection)
        async throws
    {
        let cells = upserted.map(\.cell)
        try await connection.query(
            """
            INSERT INTO loudness_cells (
                venue_id, weekday, hour, level_dbfs, range_low_dbfs, range_high_dbfs, scale_db, checkins, devices,
                confidence, estimated, basis, calibration_fit_id, character_seconds, character_checkins,
                character_class_seconds, character_lc_minus_la_db, character_la90_dbfs, character_phone_seconds)
            SELECT c.venue_id, c.weekday, c.hour, c.level, c.low, c.high, c.scale, c.checkins, c.devices, c.confidence,
                   c.basis <> '', NULLIF(c.basis, ''), calibration_fit_in_force(), NULLIF(c.character_seconds, 0),
                   NULLIF(c.character_checkins, 0), NULLIF(c.classes, '')::integer[],
                   NULLIF(c.lc_minus_la, 'NaN'::real), NULLIF(c.la90, 'NaN'::real),
                   CASE WHEN c.character_seconds > 0 THEN c.phone_seconds END
            FROM unnest(
                \(upserted.map(\.venueID))::bigint[],
                \(cells.map { Int16($0.weekday) })::smallint[], \(cells.map { Int16($0.hour) })::smallint[],
                \(cells.map { Float($0.levelDBFS) })::real[], \(cells.map { Float($0.rangeLowDBFS) })::real[],
                \(cells.map { Float($0.rangeHighDBFS) })::real[], \(cells.map { Float($0.scaleDB) })::real[],
                \(cells.map { Int32($0.checkins) })::integer[], \(cells.map { Int32($0.devices) })::integer[],
                \(cells.map(\.confidence))::text[], \(cells.map { $0.basis?.rawValue ?? "" })::text[],
                \(cells.map { Int32($0.character?.seconds ?? 0) })::integer[],
                \(cells.map { Int32($0.character?.checkins ?? 0) })::integer[],
                \(cells.map { $0.character.map { AggregationResult.Hour.arrayLiteral($0.classSeconds) } ?? "" })::text[],
                \(cells.map { Float($0.character?.lcMinusLaDB ?? .nan) })::real[],
                \(cells.map { Float($0.character?.la90DBFS ?? .nan) })::real[],
                \(cells.map { Int32($0.character?.phoneSeconds ?? 0) })::integer[])
              AS c(venue_id, weekday, hour, level, low, high, scale, checkins, devices, confidence, basis,
                   character_seconds, character_checkins, classes, lc_minus_la, la90, phone_seconds)
            ON CONFLICT (venue_id, weekday, hour) DO UPDATE SET
                level_dbfs = EXCLUDED.level_dbfs, range_low_dbfs = EXCLUDED.range_low_dbfs,
                range_high_dbfs = EXCLUDED.range_high_dbfs, scale_db = EXCLUDED.scale_db,
                checkins = EXCLUDED.checkins, devices = EXCLUDED.devices, confidence = EXCLUDED.confidence,
                estimated = EXCLUDED.estimated, basis = EXCLUDED.basis,
                calibration_fit_id = EXCLUDED.calibration_fit_id, character_seconds = EXCLUDED.character_seconds,
                character_checkins = EXCLUDED.character_checkins,
                character_class_seconds = EXCLUDED.character_class_seconds,
                character_lc_minus_la_db = EXCLUDED.character_lc_minus_la_db,
                character_la90_dbfs = EXCLUDED.character_la90_dbfs,
                character_phone_seconds = EXCLUDED.character_phone_seconds, updated_at = now()
            """,
            logger: logger)
    }
}
