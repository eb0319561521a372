import Foundation
import HearClearModel
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

    /// What ``save(externalID:details:replacing:on:)`` did.
    struct Saved {
        var venue: Venue
        var created: Bool
        var zoneChanged: Bool
    }

    /// The one statement that writes a venue: creates it, or — with `replacing` — replaces the
    /// details of the existing one. No row when the venue exists and `replacing` is false (the
    /// existing row is left as it is, and not locked; read it with ``find(externalID:on:)``).
    static func saveQuery(externalID: String, details: VenueDetails, replacing: Bool) -> PostgresQuery {
        """
        WITH previous AS (SELECT timezone FROM venues WHERE external_id = \(externalID))
        INSERT INTO venues (external_id, name, name_key, latitude, longitude, timezone, address, category)
        VALUES (\(externalID), \(details.name), \(NameWords.key(of: details.name)), \(details.latitude),
                \(details.longitude), \(details.timezone), \(details.address), \(details.category))
        ON CONFLICT (external_id) \(unescaped: replacing ? Self.replacingDetails : "DO NOTHING")
        RETURNING \(unescaped: columns), (xmax = 0) AS inserted,
                  (SELECT p.timezone IS DISTINCT FROM venues.timezone FROM previous p) AS zone_changed
        """
    }

    /// What an upsert does to an existing venue.
    private static let replacingDetails = """
        DO UPDATE SET
            name = EXCLUDED.name, name_key = EXCLUDED.name_key, latitude = EXCLUDED.latitude, longitude = EXCLUDED.longitude,
            timezone = EXCLUDED.timezone, address = EXCLUDED.address, category = EXCLUDED.category,
            updated_at = now()
        """

    func save(externalID: String, details: VenueDetails, replacing: Bool, on connection: PostgresConnection)
        async throws -> Saved?
    {
        let rows = try await connection.query(
            Self.saveQuery(externalID: externalID, details: details, replacing: replacing), logger: logger)
        var saved: Saved?
        for try await row in rows {
            var c = ColumnReader(row)
            let venue = try Venue(reading: &c)
            saved = Saved(venue: venue, created: try c.next(Bool.self), zoneChanged: try c.next(Bool?.self) == true)
        }
        return saved
    }

    /// Creates or replaces the venue's details; `created` tells which happened. When the time
    /// zone of a venue with check-ins changes, their venue-local hours change: their cleaning is
    /// forgotten and the venue queued, in the same transaction.
    public func upsert(externalID: String, details: VenueDetails) async throws -> (venue: Venue, created: Bool) {
        cache.forgetVenue(externalID)
        defer { cache.forgetVenue(externalID) }
        return try await client.transaction(logger: logger) { connection in
            guard let saved = try await save(externalID: externalID, details: details, replacing: true, on: connection)
            else { throw StoreError.unexpected("venue upsert returned no row") }
            // After the rows are read: one query at a time on a connection.
            if saved.zoneChanged {
                try await connection.query(
                    AggregationQueue.forgettingCleaning(venueID: saved.venue.id), logger: logger)
            }
            return (saved.venue, saved.created)
        }
    }

    /// Creates the venue unless it exists; never changes an existing one.
    public func createIfMissing(externalID: String, details: VenueDetails) async throws -> Venue {
        try await client.withConnection { connection in
            try await createIfMissing(externalID: externalID, details: details, on: connection)
        }
    }

    /// ``createIfMissing(externalID:details:)`` on a connection (in the caller's transaction).
    func createIfMissing(externalID: String, details: VenueDetails, on connection: PostgresConnection)
        async throws -> Venue
    {
        if let saved = try await save(externalID: externalID, details: details, replacing: false, on: connection) {
            return saved.venue
        }
        // Read committed: this statement sees a row a concurrent transaction just committed.
        guard let venue = try await find(externalID: externalID, on: connection) else {
            throw StoreError.unexpected("venue \(externalID) missing after insert")
        }
        return venue
    }

    public func find(externalID: String) async throws -> Venue? {
        try await client.withConnection { connection in try await find(externalID: externalID, on: connection) }
    }

    func find(externalID: String, on connection: PostgresConnection) async throws -> Venue? {
        let rows = try await connection.query(
            "SELECT \(unescaped: Self.columns) FROM venues WHERE external_id = \(externalID)", logger: logger
        )
        for try await row in rows {
            var columns = ColumnReader(row)
            return try Venue(reading: &columns)
        }
        return nil
    }

    /// A venue, its check-in count and its cells (with their sound character, Monday 0:00 first)
    /// in one statement: what a venue's page shows, read in one round trip; `nil` for an unknown
    /// venue.
    public func sheet(externalID: String) async throws -> (venue: Venue, checkins: Int, cells: [StoredCell])? {
        let rows = try await client.query(
            """
            SELECT \(unescaped: Self.qualifiedColumns), COALESCE(c.checkins, 0)::int8,
                \(unescaped: StoredCell.columns), \(unescaped: StoredCell.characterColumns)
            FROM venues v
            LEFT JOIN venue_counts c ON c.venue_id = v.id
            LEFT JOIN loudness_cells l ON l.venue_id = v.id
            WHERE v.external_id = \(externalID)
            ORDER BY l.weekday, l.hour
            """,
            logger: logger)
        var found: (venue: Venue, checkins: Int, cells: [StoredCell])?
        for try await row in rows {
            var columns = ColumnReader(row)
            let venue = try Venue(reading: &columns)
            let checkins = try columns.next(Int.self)
            if found == nil { found = (venue, checkins, []) }
            // A venue without cells is one row whose cell columns are all NULL.
            guard !columns.peekIsNull() else { continue }
            var cell = try StoredCell(reading: &columns)
            try cell.readCharacter(&columns)
            found?.cells.append(cell)
        }
        return found
    }

    /// ``columns`` as `v.…`.
    static let qualifiedColumns = columns.split(separator: ", ").map { "v.\($0)" }.joined(separator: ", ")

    /// How many check-ins the venue has, in all: the count ingest keeps (`venue_counts`), one
    /// row read whatever the venue's history.
    public func checkinCount(venueID: Int64) async throws -> Int {
        let rows = try await client.query(
            "SELECT COALESCE((SELECT checkins FROM venue_counts WHERE venue_id = \(venueID)), 0)", logger: logger)
        for try await count in rows.decode(Int.self) { return count }
        return 0
    }
}

extension Venue {
    /// A venue from ``VenueRepository/columns``.
    init(reading columns: inout ColumnReader) throws {
        self.init(
            id: try columns.next(), externalID: try columns.next(), name: try columns.next(),
            latitude: try columns.next(), longitude: try columns.next(), timezone: try columns.next(),
            address: try columns.next(), category: try columns.next(), createdAt: try columns.next(),
            updatedAt: try columns.next())
    }
}
