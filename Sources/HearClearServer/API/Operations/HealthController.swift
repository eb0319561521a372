import HearClearEngine
import HearClearHTTP
import Hummingbird
import Logging

/// `/health`: the process answers. `/ready`: the database answers and every migration is applied
/// (200 `ready`); a database that is slow but not gone is 200 `slow` with why, and does not
/// close the outage gate; a gone one, or migrations pending, is 503 (``DatabaseReadiness``).
struct HealthController {
    let readiness: DatabaseReadiness

    func addRoutes(to router: Router<AppRequestContext>) {
        router.get("health") { _, _ in
            try JSONResponse.make(["status": "ok"])
        }
        router.get("ready") { _, context in
            switch await readiness.check(logger: context.logger) {
            case .ready:
                return try JSONResponse.make(["status": "ready"])
            case .migrationsPending:
                return try JSONResponse.make(["status": "migrations pending"], status: .serviceUnavailable)
            case .slow(let detail):
                return try JSONResponse.make(["status": "slow", "detail": detail])
            case .unreachable:
                return try JSONResponse.make(["status": "database unreachable"], status: .serviceUnavailable)
            }
        }
    }
}
