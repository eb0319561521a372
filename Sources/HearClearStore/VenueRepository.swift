import Foundation
import Logging
import PostgresNIO

/// Venues by external id.
public struct VenueRepository: Sendable {
    let client: PostgresClient
    let logger: Logger
    let cache: IngestCache

    public init(client: PostgresClient, logger: Logger, cache: IngestCache = IngestCache()) {
        self.client = client
        self.logger = logger
        self.cache = cache
    }

    static let columns =
        "id, external_id, name, latitude, longitude, timezone, address, category, created_at, updated_at"

    /// Creates or replaces the venue's details; `created` tells which happened. When the time
    /// zone of a venue with check-ins changes, their venue-local hours change: their cleaning is
    /// forgotten and the venue queued, in the same transaction.
    public func upsert(externalID: String, details: VenueDetails) async throws -> (venue: Venue, created: Bool) {
        cache.forgetVenue(externalID)
        defer { cache.forgetVenue(externalID) }
        return try await client.transaction(logger: logger) { connection in
            let rows = try await connection.query(
                """
                WITH previous AS (SELECT timezone FROM venues WHERE external_id = \(externalID))
                INSERT INTO venues (external_id, name, latitude, longitude, timezone, address, category)
                VALUES (\(externalID), \(details.name), \(details.latitude), \(details.longitude),
                        \(details.timezone), \(details.address), \(details.category))
                ON CONFLICT (external_id) DO UPDATE SET
                    name = EXCLUDED.name, latitude = EXCLUDED.latitude, longitude = EXCLUDED.longitude,
                    timezone = EXCLUDED.timezone, address = EXCLUDED.address, category = EXCLUDED.category,
                    updated_at = now()
                RETURNING id, external_id, name, latitude, longitude, timezone, address, category,
                          created_at, updated_at, (xmax = 0) AS inserted,
                          (SELECT p.timezone IS DISTINCT FROM venues.timezone FROM previous p) AS zone_changed
                """,
                logger: logger
            )
            var result: (Venue, Bool, Bool)?
            for try await row in rows {
                var c = ColumnReader(row)
                let venue = Venue(
                    id: try c.next(), externalID: try c.next(), name: try c.next(), latitude: try c.next(),
                    longitude: try c.next(), timezone: try c.next(), address: try c.next(), category: try c.next(),
                    createdAt: try c.next(), updatedAt: try c.next()
                )
                result = (venue, try c.next(Bool.self), try c.next(Bool?.self) == true)
            }
            guard let (venue, created, zoneChanged) = result else {
                throw StoreError.unexpected("venue upsert returned no row")
            }
            // After the rows are read: one query at a time on a connection.
            if zoneChanged { try await forgetCleaning(venueID: venue.id, on: connection) }
            return (venue, created)
        }
    }

    /// Makes the worker clean the venue's check-ins again (their venue-local hours changed) and
    /// queues the venue when it has any.
    func forgetCleaning(venueID: Int64, on connection: PostgresConnection) async throws {
        try await connection.query(
            """
            WITH forgotten AS (
                UPDATE checkins SET cleaned_at = NULL WHERE venue_id = \(venueID) AND cleaned_at IS NOT NULL RETURNING 1),
            queued AS (
                INSERT INTO aggregation_queue (venue_id) SELECT \(venueID) WHERE EXISTS (SELECT 1 FROM forgotten)
                RETURNING venue_id)
            SELECT pg_notify(\(CheckinRepository.aggregationChannel), venue_id::text) FROM queued
            """,
            logger: logger
        )
    }

    /// Creates the venue unless it exists; never changes an existing one.
    public func createIfMissing(externalID: String, details: VenueDetails) async throws -> Venue {
        _ = try await client.query(
            """
            INSERT INTO venues (external_id, name, latitude, longitude, timezone, address, category)
            VALUES (\(externalID), \(details.name), \(details.latitude), \(details.longitude),
                    \(details.timezone), \(details.address), \(details.category))
            ON CONFLICT (external_id) DO NOTHING
            """,
            logger: logger
        )
        guard let venue = try await find(externalID: externalID) else {
            throw StoreError.unexpected("venue \(externalID) missing after insert")
        }
        return venue
    }

    public func find(externalID: String) async throws -> Venue? {
        let rows = try await client.query(
            "SELECT \(unescaped: Self.columns) FROM venues WHERE external_id = \(externalID)", logger: logger
        )
        for try await row in rows.decode(VenueRow.self) { return Venue(row) }
        return nil
    }

    /// How many check-ins the venue has, in all.
    public func checkinCount(venueID: Int64) async throws -> Int {
        let rows = try await client.query("SELECT count(*) FROM checkins WHERE venue_id = \(venueID)", logger: logger)
        for try await count in rows.decode(Int.self) { return count }
        return 0
    }
}

typealias VenueRow = (Int64, String, String, Double, Double, String?, String?, String?, Date, Date)

extension Venue {
    init(_ row: VenueRow) {
        self.init(
            id: row.0, externalID: row.1, name: row.2, latitude: row.3, longitude: row.4, timezone: row.5,
            address: row.6, category: row.7, createdAt: row.8, updatedAt: row.9
        )
    }
}

public enum StoreError: Error, CustomStringConvertible {
    case unexpected(String)
    public var description: String {
        switch self {
        case .unexpected(let message): message
        }
    }
}
