import HearClearStore
import Hummingbird
import Logging
import PostgresNIO

/// `/health`: the process answers. `/ready`: the database answers and every migration is applied.
struct HealthController {
    let client: PostgresClient
    let migrations: MigrationRunner

    func addRoutes(to router: Router<AppRequestContext>) {
        router.get("health") { _, _ in
            try JSONResponse.make(["status": "ok"])
        }
        router.get("ready") { _, context in
            do {
                guard try await withTimeout(.seconds(5), { try await migrations.isUpToDate() }) else {
                    return try JSONResponse.make(["status": "migrations pending"], status: .serviceUnavailable)
                }
                return try JSONResponse.make(["status": "ready"])
            } catch {
                context.logger.warning("readiness check failed", metadata: ["error": "\(error)"])
                return try JSONResponse.make(["status": "database unreachable"], status: .serviceUnavailable)
            }
        }
    }
}

struct TimedOut: Error {}

/// Runs `body`, throwing `TimedOut` after `limit` (a pool with no reachable database would
/// otherwise wait for a connection for a long time).
func withTimeout<T: Sendable>(_ limit: Duration, _ body: @Sendable @escaping () async throws -> T) async throws -> T {
    try await withThrowingTaskGroup(of: T.self) { group in
        group.addTask { try await body() }
        group.addTask {
            try await Task.sleep(for: limit)
            throw TimedOut()
        }
        defer { group.cancelAll() }
        return try await group.next()!
    }
}
