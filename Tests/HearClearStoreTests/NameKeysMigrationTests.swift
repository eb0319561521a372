import HearClearModel
import HearClearTestSupport
import Logging
import PostgresNIO
import Testing

@testable import HearClearStore

/// Migration 0027 writes the name key (``NameWords/key(of:)``) of every venue stored before it, in
/// batches, and venues saved after it carry theirs.
@Suite("Venues' name keys written by migration")
struct NameKeysMigrationTests {
    let logger = Logger(label: "test")

    @Test("every venue stored before 0027 gets its key; a saved venue has its own")
    func filled() async throws {
        try await withEmptyTestDatabase { client, _ in
            let migrations = try Migration.load(from: TestCluster.migrationsDirectory)
            try await MigrationRunner(
                client: client, migrations: migrations.filter { $0.version <= 26 }, logger: logger
            ).apply()
            // More than a batch, so that the batches' cursor is exercised.
            let names = ["Quiet Corner Café", "The King's Arms", "Ölbar", "%", "東京 カフェ"]
            let count = NameKeysFill.batchSize + 7
            try await client.query(
                """
                INSERT INTO venues (external_id, name, latitude, longitude)
                SELECT 'old-' || i, (\(names)::text[])[1 + i % \(names.count)], 0, 0 FROM generate_series(0, \(count - 1)) i
                """, logger: logger)
            try await MigrationRunner(client: client, migrations: migrations, logger: logger).apply()
            var seen = 0
            for try await (name, key) in try await client.query(
                "SELECT name, name_key FROM venues", logger: logger
            ).decode((String, String?).self) {
                #expect(key == NameWords.key(of: name), "\(name)")
                seen += 1
            }
            #expect(seen == count)
            #expect(NameWords.key(of: "Quiet Corner Café") == " quiet corner cafe")

            let saved = try await VenueRepository(client: client, logger: logger).upsert(
                externalID: "new", details: .init(name: "Straße Nº 5", latitude: 1, longitude: 2))
            let rows = try await client.query(
                "SELECT name_key FROM venues WHERE id = \(saved.venue.id)", logger: logger)
            for try await key in rows.decode(String?.self) { #expect(key == " strasse no 5") }
        }
    }
}
