import HearClearEngine
import HearClearStore
import HearClearTestSupport
import PostgresNIO
import Testing

/// The server's connections are opened with `CheckinPartitions.sessionParameters`.
@Suite("The server's database sessions")
struct EngineDatabaseSessionTests {
    @Test("plan without constraint exclusion, partition pruning on")
    func sessionSettings() async throws {
        try await withTestDatabase { _, configuration in
            var engineConfiguration = EngineConfiguration()
            engineConfiguration.databaseConnections = 2
            let database = try EngineDatabase.open(
                .external(configuration), configuration: engineConfiguration, logger: engineTestLogger)
            let settings = try await withThrowingTaskGroup(of: [String]?.self) { group in
                group.addTask {
                    await database.client.run()
                    return nil
                }
                defer { group.cancelAll() }
                let rows = try await database.client.query(
                    "SELECT current_setting('constraint_exclusion'), current_setting('enable_partition_pruning')")
                var values: [String] = []
                for try await (exclusion, pruning) in rows.decode((String, String).self) {
                    values = [exclusion, pruning]
                }
                return values
            }
            #expect(settings == ["off", "on"])
        }
    }
}
