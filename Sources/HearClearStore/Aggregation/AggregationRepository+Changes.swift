import Foundation
import HearClearModel
import LoudnessCore
import PostgresNIO

extension AggregationRepository {
    /// The venues' changes as stored (`venue_changes`), oldest first, by venue.
    public func changes(venueIDs: [Int64], on connection: PostgresConnection) async throws
        -> [Int64: [StoredVenueChange]]
    {
        guard !venueIDs.isEmpty else { return [:] }
        let rows = try await connection.query(
            """
            SELECT venue_id, \(unescaped: StoredVenueChange.columns)
            FROM venue_changes WHERE venue_id = ANY(\(venueIDs))
            ORDER BY venue_id, changed_at
            """,
            logger: logger)
        var changes: [Int64: [StoredVenueChange]] = [:]
        for try await row in rows {
            var columns = ColumnReader(row)
            let venueID: Int64 = try columns.next()
            changes[venueID, default: []].append(try StoredVenueChange(reading: &columns))
        }
        return changes
    }

    /// Stores the changes of the results that carry them: every row of such a venue is upserted
    /// (a dismissal stays a dismissal; when it was first detected stays; a dismissed or withdrawn
    /// change keeps its last hours and count), and its rows the
    /// judgement no longer holds are deleted.
    func writeChanges(_ results: [AggregationResult], on connection: PostgresConnection) async throws {
        let written = results.compactMap { result in result.changes.map { (result.venueID, $0) } }
        guard !written.isEmpty else { return }
        let rows = written.flatMap { venue, changes in changes.map { (venue, $0) } }
        try await connection.query(
            """
            WITH wanted AS (
                SELECT * FROM unnest(\(rows.map(\.0))::bigint[], \(rows.map(\.1.changedAt))::timestamptz[])
                  AS w(venue_id, changed_at))
            DELETE FROM venue_changes v
            WHERE v.venue_id = ANY(\(written.map(\.0)))
              AND NOT EXISTS (SELECT 1 FROM wanted w WHERE w.venue_id = v.venue_id AND w.changed_at = v.changed_at)
            """,
            logger: logger)
        guard !rows.isEmpty else { return }
        try await connection.query(
            """
            INSERT INTO venue_changes (venue_id, changed_at, detected_at, status, shift_db, shifts_db, checkins_since,
                                       dismissed_at, dismissed_by)
            SELECT c.venue_id, c.changed_at, c.detected_at, c.status, c.shift, string_to_array(c.shifts, ',')::real[],
                   c.since, CASE WHEN c.status = 'dismissed' THEN now() END,
                   CASE WHEN c.status = 'dismissed' THEN 'judgement' END
            FROM unnest(\(rows.map(\.0))::bigint[], \(rows.map(\.1.changedAt))::timestamptz[],
                        \(rows.map(\.1.detectedAt))::timestamptz[], \(rows.map(\.1.status.rawValue))::text[],
                        \(rows.map { Float($0.1.shiftDB) })::real[],
                        \(rows.map { $0.1.shiftsDB.map { String(Float($0)) }.joined(separator: ",") })::text[],
                        \(rows.map { Int32($0.1.checkinsSince) })::integer[])
              AS c(venue_id, changed_at, detected_at, status, shift, shifts, since)
            ON CONFLICT (venue_id, changed_at) DO UPDATE SET
                status = CASE WHEN venue_changes.status = 'dismissed' THEN 'dismissed' ELSE EXCLUDED.status END,
                shift_db = EXCLUDED.shift_db,
                -- A change no longer in force keeps what it last showed (the judge measures only
                -- changes in force).
                shifts_db = CASE WHEN EXCLUDED.status = 'in_force' THEN EXCLUDED.shifts_db ELSE venue_changes.shifts_db END,
                checkins_since = CASE WHEN EXCLUDED.status = 'in_force' THEN EXCLUDED.checkins_since
                                      ELSE venue_changes.checkins_since END,
                updated_at = now()
            """,
            logger: logger)
    }
}

extension StoredVenueChange {
    /// The columns ``init(reading:)`` reads, of `venue_changes`.
    static let columns = prefixedColumns(nil)

    /// ``columns`` of the table under `alias`.
    static func prefixedColumns(_ alias: String?) -> String {
        let p = alias.map { "\($0)." } ?? ""
        return """
            \(p)changed_at, \(p)detected_at, \(p)status, \(p)shift_db::float8, \(p)shifts_db, \(p)checkins_since,
            \(p)dismissed_at, \(p)dismissed_by
            """
    }

    init(reading columns: inout ColumnReader) throws {
        let changedAt: Date = try columns.next()
        let detectedAt: Date = try columns.next()
        let rawStatus: String = try columns.next()
        guard let status = VenueChange.Status(rawValue: rawStatus) else {
            throw StoreError.unexpected("unknown venue_changes.status '\(rawStatus)'")
        }
        let shift: Double = try columns.next()
        let shifts: [Float] = try columns.next()
        let since: Int32 = try columns.next()
        self.init(
            changedAt: changedAt, detectedAt: detectedAt, status: status, shiftDB: shift,
            shiftsDB: shifts.map(Double.init), checkinsSince: Int(since), dismissedAt: try columns.next(),
            dismissedBy: try columns.next())
    }
}

extension AggregationRepository {
    /// The venues' open and dismissed campaigns (`venue_campaigns`), by venue.
    public func campaigns(venueIDs: [Int64], on connection: PostgresConnection) async throws -> [Int64:
        [StoredCampaign]]
    {
        guard !venueIDs.isEmpty else { return [:] }
        let rows = try await connection.query(
            """
            SELECT \(unescaped: StoredCampaign.columns) FROM venue_campaigns
            WHERE venue_id = ANY(\(venueIDs)) AND status IN ('open', 'dismissed')
            ORDER BY venue_id, id
            """,
            logger: logger)
        var campaigns: [Int64: [StoredCampaign]] = [:]
        for try await row in rows {
            var columns = ColumnReader(row)
            let campaign = try StoredCampaign(reading: &columns)
            campaigns[campaign.venueID, default: []].append(campaign)
        }
        return campaigns
    }

    /// Stores the open campaign of each result that carries one: replaces the venue's open row
    /// (a new finding updates it, `.some(nil)` deletes it).
    func writeCampaigns(_ results: [AggregationResult], on connection: PostgresConnection) async throws {
        let written = results.compactMap { result in result.campaign.map { (result.venueID, $0) } }
        guard !written.isEmpty else { return }
        let found = written.compactMap(\.1)
        try await connection.query(
            """
            DELETE FROM venue_campaigns
            WHERE status = 'open' AND venue_id = ANY(\(written.filter { $0.1 == nil }.map(\.0)))
            """,
            logger: logger)
        guard !found.isEmpty else { return }
        try await connection.query(
            """
            INSERT INTO venue_campaigns (venue_id, direction, devices, checkins, deviation_db, moves_db, would_move_db)
            SELECT c.venue_id, c.direction, string_to_array(c.devices, ',')::bigint[], c.checkins, c.deviation,
                   c.moves, c.would
            FROM unnest(\(found.map(\.venueID))::bigint[], \(found.map(\.direction.rawValue))::text[],
                        \(found.map { $0.devices.map(String.init).joined(separator: ",") })::text[],
                        \(found.map { Int32($0.checkins) })::integer[], \(found.map { Float($0.deviationDB) })::real[],
                        \(found.map { Float($0.movesDB) })::real[], \(found.map { Float($0.wouldMoveDB) })::real[])
              AS c(venue_id, direction, devices, checkins, deviation, moves, would)
            ON CONFLICT (venue_id) WHERE status = 'open' DO UPDATE SET
                direction = EXCLUDED.direction, devices = EXCLUDED.devices, checkins = EXCLUDED.checkins,
                deviation_db = EXCLUDED.deviation_db, moves_db = EXCLUDED.moves_db,
                would_move_db = EXCLUDED.would_move_db, updated_at = now()
            """,
            logger: logger)
    }
}

extension StoredCampaign {
    /// The columns ``init(reading:)`` reads, of `venue_campaigns`.
    static let columns = prefixedColumns(nil)

    /// ``columns`` of the table under `alias`.
    static func prefixedColumns(_ alias: String?) -> String {
        let p = alias.map { "\($0)." } ?? ""
        return """
            \(p)id, \(p)venue_id, \(p)direction, \(p)devices, \(p)checkins, \(p)deviation_db::float8,
            \(p)moves_db::float8, \(p)would_move_db::float8, \(p)status, \(p)detected_at, \(p)updated_at,
            \(p)decided_at, \(p)decided_by
            """
    }

    init(reading columns: inout ColumnReader) throws {
        let id: Int64 = try columns.next()
        let venueID: Int64 = try columns.next()
        let direction = try columns.next(String.self)
        let devices: [Int64] = try columns.next()
        let checkins: Int32 = try columns.next()
        let deviation: Double = try columns.next()
        let moves: Double = try columns.next()
        let would: Double = try columns.next()
        let status = try columns.next(String.self)
        guard let parsedDirection = Campaign.Direction(rawValue: direction), let parsedStatus = Status(rawValue: status)
        else { throw StoreError.unexpected("venue_campaigns row \(id): direction '\(direction)', status '\(status)'") }
        self.init(
            id: id, venueID: venueID, direction: parsedDirection, devices: devices, checkins: Int(checkins),
            deviationDB: deviation, movesDB: moves, wouldMoveDB: would, status: parsedStatus,
            detectedAt: try columns.next(), updatedAt: try columns.next(), decidedAt: try columns.next(),
            decidedBy: try columns.next())
    }
}
