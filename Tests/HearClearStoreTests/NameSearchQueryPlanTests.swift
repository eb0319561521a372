import Foundation
import HearClearTestSupport
import Logging
import PostgresNIO
import Testing

@testable import HearClearStore

/// A search by name reads the venues through an index (the trigram index of `name_key`, migration
/// 0027, or the location's), never the whole table: checked on the plans PostgreSQL chooses for 50,000
/// venues (analysed), alone and near a point. (For a text of three letters or fewer, or of several
/// words, PostgreSQL reads these 50,000 venues whole instead: its estimate of the trigram index's
/// cost for so few or such common trigrams exceeds a sequential scan's, about 1,800 units, a few
/// milliseconds; a bigger table tips it to the index.)
@Suite("Search by name uses an index")
struct NameSearchQueryPlanTests {
    static let logger = Logger(label: "test")

    @Test("by name alone, with a point, with a cursor: no sequential scan of venues")
    func plans() async throws {
        try await withTestDatabase { client, _ in
            try await client.query(
                """
                INSERT INTO venues (external_id, name, name_key, latitude, longitude)
                SELECT 'v' || i, CASE WHEN i % 500 = 0 THEN 'The King''s Arms ' || i ELSE 'Venue ' || i END,
                       CASE WHEN i % 500 = 0 THEN ' the king s arms ' || i ELSE ' venue ' || i END,
                       51 + (i % 100) * 0.01, -0.5 + (i / 100) * 0.002
                FROM generate_series(1, 50000) i
                """, logger: Self.logger)
            try await client.query("ANALYZE", logger: Self.logger)
            let queries: [(String, PostgresQuery)] = [
                (
                    "alone",
                    VenueSearchRepository.nameQuery(
                        words: ["arms"], latitude: nil, longitude: nil, radiusMetres: 1_000, at: nil, category: nil,
                        limit: 21, after: nil, afterKey: nil, referenceOffsetDB: 110)
                ),
                (
                    "near a point, a later page",
                    VenueSearchRepository.nameQuery(
                        words: ["arms", "king"], latitude: 51.5, longitude: -0.4, radiusMetres: 5_000, at: Date(),
                        category: nil, limit: 21,
                        after: .init(levelDB: nil, distanceMetres: 100, venueID: 1), afterKey: " the king s arms 1",
                        referenceOffsetDB: 110)
                ),
            ]
            for (name, query) in queries {
                let explain = PostgresQuery(unsafeSQL: "EXPLAIN " + query.sql, binds: query.binds)
                var lines: [String] = []
                for try await line in try await client.query(explain, logger: Self.logger).decode(String.self) {
                    lines.append(line)
                }
                let plan = lines.joined(separator: "\n")
                #expect(!plan.contains("Seq Scan on venues "), "\(name): \(plan)")
                #expect(
                    plan.contains("venues_name_key_trgm_idx")
                        || plan.contains("location"), "\(name): \(plan)")
            }
        }
    }
}
