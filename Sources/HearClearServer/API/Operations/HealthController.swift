import HearClearEngine
import HearClearStore
import Hummingbird
import Logging
import PostgresNIO

/// `/health`: the process answers. `/ready`: the database answers and every migration is applied.
struct HealthController {
    let client: PostgresClient
    let migrations: MigrationRunner
    let outage: DatabaseOutage

    func addRoutes(to router: Router<AppRequestContext>) {
        router.get("health") { _, _ in
            try JSONResponse.make(["status": "ok"])
        }
        router.get("ready") { _, context in
            do {
                guard try await withTimeout(.seconds(5), { try await migrations.isUpToDate() }) else {
                    return try JSONResponse.make(["status": "migrations pending"], status: .serviceUnavailable)
                }
                outage.answered(logger: context.logger)
                return try JSONResponse.make(["status": "ready"])
            } catch  where DatabaseOutage.isOutage(error) {
                outage.failed(error, logger: context.logger)
                return try JSONResponse.make(["status": "database unreachable"], status: .serviceUnavailable)
            } catch {
                context.logger.warning("readiness check failed", metadata: ["error": "\(error)"])
                return try JSONResponse.make(["status": "database unreachable"], status: .serviceUnavailable)
            }
        }
    }
}
