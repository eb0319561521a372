import HearClearHTTP
import Hummingbird
import Prometheus

/// `GET /metrics`: Prometheus text exposition of the process's swift-metrics (request counts
/// and durations by route, ingest counters). `serve` bootstraps swift-metrics with this
/// registry; without that (tests) the page is simply empty.
struct MetricsController {
    let registry: PrometheusCollectorRegistry

    func addRoutes(to router: Router<AppRequestContext>) {
        let registry = self.registry
        router.get("metrics") { _, _ in
            Response(
                status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
                body: .init(byteBuffer: ByteBuffer(bytes: registry.emitToBuffer()))
            )
        }
    }
}
