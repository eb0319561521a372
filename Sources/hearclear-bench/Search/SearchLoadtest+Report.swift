import ArgumentParser
import AsyncHTTPClient
import Foundation
import HearClearCLI
import HearClearEngine
import Histogram
import LoudnessCore
import NIOCore
import NIOFoundationCompat

/// The report: searches, the `/health` reference, visibility and the comparison, as text or JSON.
extension SearchLoadtest {
    /// The figures, printed as text or (`--json`) as one JSON object.
    struct Report: Encodable {
        /// Throughput and latency of one phase's requests.
        struct Figures: Encodable {
            var requests: Int
            var errors: Int
            var perSecond: Double
            var p50ms: Double
            var p99ms: Double
            var p999ms: Double
            var maxMs: Double

            init(_ tally: Tally) {
                requests = tally.requests
                errors = tally.errors
                perSecond = Double(tally.requests) / max(tally.seconds, 1e-9)
                func ms(_ percentile: Double) -> Double { Double(tally.histogram.valueAtPercentile(percentile)) / 1000 }
                p50ms = ms(50)
                p99ms = ms(99)
                p999ms = ms(99.9)
                maxMs = Double(tally.histogram.max) / 1000
            }
        }

        /// Requests of one kind mixed into the searches: the check-ins of `--ingest-share`, the
        /// grids of `--grid-share`, the pages of `--page-share`.
        struct Mixed: Encodable {
            var share: Double
            var requests: Int
            var errors: Int
            var perSecond: Double
            /// To `/health`, as the searches' `throughputRatio`; the mean over the whole run.
            var throughputRatio: Double
            var latencyMs: ReadLoadtest.Report.Latency

            init?(share: Double, _ side: Tally.Side, seconds: Double, health: Figures) {
                guard share > 0 else { return nil }
                self.share = share
                requests = side.requests
                errors = side.errors
                perSecond = Double(side.requests) / max(seconds, 1e-9)
                throughputRatio = perSecond / max(health.perSecond, 1e-9)
                latencyMs = ReadLoadtest.Report.Latency(side.histogram)
            }

            func line(_ name: String, what: String) -> String {
                func ms(_ value: Double) -> String { String(format: "%.2f ms", value) }
                return String(format: "%@ %8.0f/s  ", name, perSecond)
                    + "p50 \(ms(latencyMs.p50))  p99 \(ms(latencyMs.p99))  p99.9 \(ms(latencyMs.p999))  "
                    + "max \(ms(latencyMs.max))  (\(requests) \(what), \(errors) errors; share \(share); "
                    + String(format: "%.1f %% of /health)", throughputRatio * 100)
            }
        }

        /// The visibility probe: from a check-in's POST answer to the first search that counts it.
        struct Visibility: Encodable {
            /// Probes sent; of them, seen within the limit, not seen, and failed (a request failed).
            var probes: Int
            var seen: Int
            var unseen: Int
            var failed: Int
            /// Over the probes seen; nil when none was.
            var ms: ReadLoadtest.Report.Latency?
            /// Of the probes seen in search: their grid changed within the limit, or not; the
            /// time from the POST's answer to the first changed grid, over those that did.
            var seenInGrid: Int
            var unseenInGrid: Int
            var gridMs: ReadLoadtest.Report.Latency?
            var limitSeconds: Int
            var firstError: String?
        }

        /// The same searches on `--compare-endpoint`.
        struct Compare: Encodable {
            var url: String
            var search: Figures
            var meanResults: Double
            /// To the main server's `/health`, as the main server's search ratios.
            var throughputRatio: Double
            var p99Ratio: Double
            /// To the main server's search.
            var throughputRatioToMain: Double
            var p99RatioToMain: Double
            var firstError: String?
        }

        var url: String
        var health: Figures
        var search: Figures
        var meanResults: Double
        var throughputRatio: Double
        var p99Ratio: Double
        var ingest: Mixed?
        var grid: Mixed?
        var page: Mixed?
        /// Every request of the mix (searches and what was mixed in) a second, and its ratio to
        /// `/health`: the clients share one loop, so each kind's rate is its share of this.
        var mixPerSecond: Double
        var mixRatio: Double
        var visibleToSearch: Visibility?
        var compare: Compare?
        var firstError: String?

        init(health: Tally, search: Tally, visibility: VisibilityResult?, compare: Tally?, command: SearchLoadtest) {
            url = command.target.endpoint
            self.health = Figures(health)
            self.search = Figures(search)
            meanResults = Double(search.results) / Double(max(1, search.read))
            throughputRatio = self.search.perSecond / max(self.health.perSecond, 1e-9)
            p99Ratio = self.search.p99ms / max(self.health.p99ms, 1e-9)
            firstError = search.firstError ?? health.firstError
            ingest = Mixed(share: command.ingestShare, search.ingest, seconds: search.seconds, health: self.health)
            grid = Mixed(share: command.gridShare, search.grid, seconds: search.seconds, health: self.health)
            page = Mixed(share: command.pageShare, search.page, seconds: search.seconds, health: self.health)
            let all = search.requests + search.ingest.requests + search.grid.requests + search.page.requests
            mixPerSecond = Double(all) / max(search.seconds, 1e-9)
            mixRatio = mixPerSecond / max(self.health.perSecond, 1e-9)
            visibleToSearch = visibility.map {
                let seen = Int($0.visible.totalCount)
                let inGrid = Int($0.inGrid.totalCount)
                return Visibility(
                    probes: $0.probes, seen: seen, unseen: $0.unseen, failed: $0.failed,
                    ms: seen > 0 ? ReadLoadtest.Report.Latency($0.visible) : nil, seenInGrid: inGrid,
                    unseenInGrid: $0.unseenInGrid, gridMs: inGrid > 0 ? ReadLoadtest.Report.Latency($0.inGrid) : nil,
                    limitSeconds: Int(SearchLoadtest.probeLimit.components.seconds), firstError: $0.firstError)
            }
            if let compare, let base = command.compareBase {
                let figures = Figures(compare)
                self.compare = Compare(
                    url: base, search: figures, meanResults: Double(compare.results) / Double(max(1, compare.read)),
                    throughputRatio: figures.perSecond / max(self.health.perSecond, 1e-9),
                    p99Ratio: figures.p99ms / max(self.health.p99ms, 1e-9),
                    throughputRatioToMain: figures.perSecond / max(self.search.perSecond, 1e-9),
                    p99RatioToMain: figures.p99ms / max(self.search.p99ms, 1e-9), firstError: compare.firstError)
            }
        }

        var text: String {
            func line(_ name: String, _ f: Figures) -> String {
                String(
                    format:
                        "%@ %8.0f/s  p50 %.2f ms  p99 %.2f ms  p99.9 %.2f ms  max %.2f ms  (%d requests, %d errors)",
                    name, f.perSecond, f.p50ms, f.p99ms, f.p999ms, f.maxMs, f.requests, f.errors)
            }
            func ms(_ value: Double) -> String { String(format: "%.2f ms", value) }
            var lines: [String] = []
            if compare != nil { lines.append("main: \(url)") }
            lines += [
                line("health ", health), line("search ", search),
                String(
                    format: "search/health: throughput %.1f %%, p99 ×%.1f; %.1f results a search",
                    throughputRatio * 100, p99Ratio, meanResults),
            ]
            if let ingest { lines.append(ingest.line("ingest ", what: "check-ins")) }
            if let grid { lines.append(grid.line("grid   ", what: "grids")) }
            if let page { lines.append(page.line("page   ", what: "venue pages")) }
            if ingest != nil || grid != nil || page != nil {
                lines.append(
                    String(format: "the mix: %.0f requests/s in all, %.1f %% of /health", mixPerSecond, mixRatio * 100))
            }
            if let visible = visibleToSearch {
                let figures =
                    visible.ms.map { "p50 \(ms($0.p50)), p99 \(ms($0.p99)), max \(ms($0.max))" } ?? "none seen"
                let failures =
                    visible.unseen + visible.failed > 0
                    ? " (failures: \(visible.unseen) not seen within \(visible.limitSeconds) s, \(visible.failed) failed)"
                    : ""
                lines.append(
                    "visible to search (POST answer → first search that counts it; \(visible.probes) probes, "
                        + "\(visible.seen) seen): \(figures)\(failures)")
                let grid =
                    visible.gridMs.map { "p50 \(ms($0.p50)), p99 \(ms($0.p99)), max \(ms($0.max))" } ?? "none seen"
                lines.append(
                    "visible in its grid (POST answer → first read of the grid that changed; \(visible.seenInGrid) seen, "
                        + "\(visible.unseenInGrid) not within \(visible.limitSeconds) s): \(grid)")
                if let error = visible.firstError { lines.append("first probe error: \(error)") }
            }
            if let firstError { lines.append("first error: \(firstError)") }
            if let compare {
                lines += [
                    "compare: \(compare.url)",
                    line("search ", compare.search),
                    String(
                        format: "search/health (main's): throughput %.1f %%, p99 ×%.1f; %.1f results a search",
                        compare.throughputRatio * 100, compare.p99Ratio, compare.meanResults),
                    String(
                        format: "compare/main search: throughput %.1f %%, p99 ×%.2f",
                        compare.throughputRatioToMain * 100, compare.p99RatioToMain),
                ]
                if let error = compare.firstError { lines.append("first error (compare): \(error)") }
            }
            return lines.joined(separator: "\n")
        }
    }
}
