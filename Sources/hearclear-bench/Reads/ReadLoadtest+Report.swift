import ArgumentParser
import AsyncHTTPClient
import Foundation
import HearClearCLI
import Histogram
import LoudnessCore
import NIOCore
import NIOFoundationCompat

/// The report: throughput and latencies per read, as text or JSON.
extension ReadLoadtest {
    /// The figures, printed as text or (`--json`) as one JSON object.
    struct Report: Encodable {
        struct Latency: Encodable {
            var p50: Double
            var p99: Double
            var p999: Double
            var max: Double

            init(_ histogram: Histogram<UInt64>) {
                func ms(_ percentile: Double) -> Double { Double(histogram.valueAtPercentile(percentile)) / 1000 }
                p50 = ms(50)
                p99 = ms(99)
                p999 = ms(99.9)
                max = ms(100)
            }
        }

        struct Staleness: Encodable {
            /// Probes whose check-in showed, and the latency figures over them.
            var probes: Int
            var unseen: Int
            var failed: Int
            var ms: Latency
        }

        var url: String
        var clients: Int
        var venues: Int
        var durationSeconds: Double
        var requests: Int
        var requestsPerSecond: Double
        var reads: Int
        var readsPerSecond: Double
        var requestsByKind: [String: Int]
        var errorsByKind: [String: Int]
        var readLatencyMs: Latency
        var ingestLatencyMs: Latency?
        var stalenessMs: Staleness?
        var mix: [String: Int]
        /// `GET /health` alone, before (`--health`), and the reads/s as a ratio to it.
        var healthPerSecond: Double?
        var readsToHealth: Double?
        var ingestShare: Double
        var gzip: Bool
        var firstError: String?

        init(
            _ results: ClientResult, staleness: ProbeResult?, seconds: Double, mix: Mix, healthPerSecond: Double?,
            command: ReadLoadtest
        ) {
            url = command.target.url
            clients = command.clients
            venues = command.venues
            durationSeconds = (seconds * 100).rounded() / 100
            requests = results.requests.reduce(0, +)
            reads = requests - results.requests[Kind.ingest.rawValue]
            requestsPerSecond = (Double(requests) / seconds * 10).rounded() / 10
            readsPerSecond = (Double(reads) / seconds * 10).rounded() / 10
            requestsByKind = Dictionary(
                uniqueKeysWithValues: Kind.allCases.map { ($0.name, results.requests[$0.rawValue]) })
            errorsByKind = Dictionary(
                uniqueKeysWithValues: Kind.allCases.map { ($0.name, results.errors[$0.rawValue]) })
            readLatencyMs = Latency(results.reads)
            ingestLatencyMs = results.ingest.totalCount > 0 ? Latency(results.ingest) : nil
            stalenessMs = staleness.map {
                Staleness(
                    probes: Int($0.staleness.totalCount), unseen: $0.unseen, failed: $0.failed,
                    ms: Latency($0.staleness))
            }
            self.mix = Dictionary(uniqueKeysWithValues: Kind.reads.map { ($0.name, mix.weights[$0.rawValue]) })
            self.healthPerSecond = healthPerSecond.map { ($0 * 10).rounded() / 10 }
            let readsPerSecond = Double(requests - results.requests[Kind.ingest.rawValue]) / seconds
            readsToHealth = healthPerSecond.map { (readsPerSecond / $0 * 1000).rounded() / 1000 }
            ingestShare = command.ingestShare
            gzip = command.gzip
            firstError = results.firstError
        }

        var text: String {
            func kinds(_ counts: [String: Int]) -> String {
                Kind.allCases.map { "\($0.name) \(counts[$0.name] ?? 0)" }.joined(separator: ", ")
            }
            func ms(_ value: Double) -> String { String(format: "%.2f ms", value) }
            let errors = errorsByKind.values.reduce(0, +)
            var lines = [
                String(format: "duration: %.1f s, %d clients, %d venues", durationSeconds, clients, venues),
                String(
                    format: "requests: %d, %.0f/s; reads: %d, %.0f/s", requests, requestsPerSecond, reads,
                    readsPerSecond),
                "by kind: \(kinds(requestsByKind))",
                "errors: \(errors == 0 ? "none" : kinds(errorsByKind))",
                "read latency: p50 \(ms(readLatencyMs.p50)), p99 \(ms(readLatencyMs.p99)), "
                    + "p99.9 \(ms(readLatencyMs.p999)), max \(ms(readLatencyMs.max))",
            ]
            if let ingest = ingestLatencyMs {
                lines.append("ingest latency: p50 \(ms(ingest.p50)), p99 \(ms(ingest.p99)), max \(ms(ingest.max))")
            }
            if let staleness = stalenessMs {
                let lost =
                    staleness.unseen + staleness.failed > 0
                    ? " (\(staleness.unseen) not seen within 30 s, \(staleness.failed) failed)" : ""
                lines.append(
                    "staleness (201 → first read that counts it, \(staleness.probes) probes): p50 \(ms(staleness.ms.p50)), "
                        + "p99 \(ms(staleness.ms.p99)), max \(ms(staleness.ms.max))\(lost)")
            }
            let share = ingestShare > 0 ? ", ingest share \(ingestShare)" : ""
            let encoding = gzip ? "Accept-Encoding: gzip" : "no Accept-Encoding"
            if let healthPerSecond, let readsToHealth {
                lines.append(
                    String(format: "GET /health alone: %.0f/s; reads/s to it: %.3f", healthPerSecond, readsToHealth))
            }
            let weights = Kind.reads.compactMap { kind in mix[kind.name].flatMap { $0 > 0 ? "\(kind.name)=\($0)" : nil }
            }
            lines.append("mix: \(weights.joined(separator: ","))\(share), \(encoding)")
            if let firstError { lines.append("first error: \(firstError)") }
            return lines.joined(separator: "\n")
        }
    }
}
