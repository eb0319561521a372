import ArgumentParser
import AsyncHTTPClient
import Foundation
import HearClearCLI
import HearClearEngine
import Histogram
import LoudnessCore
import NIOCore
import NIOFoundationCompat

/// `loadtest search`: searches near random points of a synthetic city, beside a `/health`
/// reference; optionally with check-ins mixed in (`--ingest-share`, with the visibility probe)
/// and the same searches measured again on a second server (`--compare-endpoint`).
struct SearchLoadtest: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "search",
        abstract: "Search venues near random points of a synthetic city and report throughput and latency.",
        discussion: """
            The city: --venues venues <prefix>0 … <prefix>N-1 spread uniformly over a square of --city-km \
            around central Sydney (zone Australia/Sydney), a --with-cells share of them with data. --setup \
            makes it so, 32 requests at a time, with a progress line every 5 s: a venue whose document \
            (GET) already shows its place and, if it has data, three check-ins is left as it is; any other \
            is created or replaced (PUT), and a venue with data given the check-ins it lacks of three, of \
            the last minutes from three devices (levels from 60 to 90 dB, a third of them quiet); busy \
            answers (429, 502–504) and broken connections are retried. Then it waits (at most 120 s) until \
            a sample of the venues with data, spread over the city, has cells. Without it the city must \
            exist already.

            First every client sends GET /health for a quarter of --duration (at least 3 s), the reference \
            figure of this run; then every client sends, one after another over a kept-alive connection, \
            GET /api/v2/venues?near=P&radius=R&at=T&label=L&limit=20 with P uniform over the city (seeded, \
            the same in every run), R = --radius, L = --label and T = --at, by default the middle of the \
            check-ins --setup sent (about five minutes before it began), or when it sent none five minutes \
            ago; give the time of an earlier set-up's check-ins to measure a city set up before. A search \
            is an error unless it answers 200. Prints searches/s, p50/p99/p99.9/max latency \
            (HdrHistogram), the mean number of results (of every 16th answer), and both as ratios to \
            /health.

            --ingest-share S makes that share of each client's requests to the main server (--url) a POST \
            /api/v2/checkins of a fresh synthetic check-in (gzip, as `loadtest ingest` sends it) from a new \
            device to a random venue with data, an error unless it answers 201 or 200; its count and \
            latency are reported apart from the searches, whose points stay the same. Beside the clients a \
            visibility probe then posts one check-in from a new device every 250 ms, in turn to 8 venues \
            with data that the clients leave alone, and searches near that venue (radius=50&limit=50, no \
            at or label) every 20 ms until the venue's checkins shows it: the time from the POST's answer \
            to that search's is "visible to search" (p50/p99/max). A probe that does not see it within \
            10 s, or whose request fails, counts as a failure. The probe's venues must exist in their \
            places before anything is measured (else: --setup).

            --compare-endpoint URL: a second server on the same database, started with search answered by \
            PostgreSQL alone; before anything is measured it must answer /health and know <prefix>0. After the main server, exactly the same searches (the same seeded points, \
            at and label) are sent to it for the same --duration, without check-ins, and its figures are \
            printed beside the main server's, as ratios to the main server's /health and to its searches.

            --json prints the figures as one JSON object (progress lines go to standard error): health, \
            search, meanResults and the ratios, with ingest, visibleToSearch and compare when measured. \
            Only loopback or your own test hosts are fit targets. The server rate-limits this tool like \
            any client (one address, few devices): start it with --rate-exempt 127.0.0.1,::1 (as \
            `make run` does) to measure it rather than its limits.
            """
    )

    @OptionGroup var target: LoadtestOptions
    @Option(help: "Venues in the city.") var venues = 100_000
    @Option(help: "Share of the venues with data, 0…1.") var withCells = 0.2
    @Option(help: "Side of the square the venues are spread over, km.") var cityKm = 30.0
    @Option(help: "Prefix of the venue ids (A–Z a–z 0–9 . _ ~ : -).") var prefix = "search-"
    @Option(help: "Search radius, metres.") var radius = 1_500.0
    @Option(help: "The label filter of every search (comma-separated band labels); empty for none.")
    var label = "quiet"
    @Option(
        help:
            "The instant every search asks about (RFC 3339); by default that of the check-ins --setup sent, or five minutes ago.",
        transform: { text in
            guard let instant = RFC3339.parse(text) else {
                throw ValidationError("--at must be an RFC 3339 instant, e.g. 2026-11-24T00:25:00Z")
            }
            return instant.date
        })
    var at: Date?
    @Option(
        help: ArgumentHelp(
            "Base URL of a second server on the same database whose search PostgreSQL answers alone: the same searches are measured there after the main server's.",
            valueName: "url"))
    var compareEndpoint: String?
    @Option(
        help:
            "Share of each client's requests to the main server, 0…0.5, that post a fresh check-in to a venue with data instead of searching; above 0 the visibility probe runs too."
    )
    var ingestShare = 0.0
    @Flag(help: "Before measuring, create the city (idempotent: venues already in place are left as they are).")
    var setup = false
    @Flag(help: "Print the figures as one JSON object.") var json = false

    static let centre = (latitude: -33.87, longitude: 151.21)
    /// Check-ins `--setup` gives a venue with data, each from its own device.
    static let setupCheckins = 3
    /// Setup devices are `bench-device-<setupDevices + 3·venue + k>-…`, apart from other loadtests'.
    static let setupDevices: UInt64 = 10_000_000
    /// Devices of `--ingest-share`'s check-ins, one drawn at random for each: far above every other
    /// loadtest's, so none is excluded as `elsewhere_meanwhile`.
    static let ingestDevices: Range<UInt64> = (1 << 60)..<(1 << 62)

    func validate() throws {
        guard (1...1_000_000).contains(venues) else { throw ValidationError("--venues must be 1…1000000") }
        guard withCells.isFinite, (0...1).contains(withCells) else { throw ValidationError("--with-cells must be 0…1") }
        guard cityKm.isFinite, cityKm > 0, cityKm <= 500 else { throw ValidationError("--city-km must be in (0, 500]") }
        guard radius.isFinite, radius > 0, radius <= 50_000 else {
            throw ValidationError("--radius must be in (0, 50000]")
        }
        try LoadtestOutput.validate(prefix: prefix)
        if let compareEndpoint {
            guard let parsed = URL(string: compareEndpoint), parsed.scheme == "http" || parsed.scheme == "https",
                parsed.host != nil
            else {
                throw ValidationError(
                    "--compare-endpoint must be an http:// or https:// base URL of the second server, e.g. http://127.0.0.1:8081"
                )
            }
        }
        guard ingestShare.isFinite, (0...0.5).contains(ingestShare) else {
            throw ValidationError("--ingest-share must be from 0 to 0.5")
        }
        guard ingestShare == 0 || withCells > 0 else {
            throw ValidationError("--ingest-share posts to venues with data: it needs --with-cells above 0")
        }
    }

    /// The point `north` and `east` of the centre in the city's square, each a share −0.5…0.5 of
    /// its side.
    func point(north: Double, east: Double) -> (latitude: Double, longitude: Double) {
        (
            Self.centre.latitude + north * cityKm * 1000 / 111_195,
            Self.centre.longitude + east * cityKm * 1000 / (111_195 * cos(Self.centre.latitude * .pi / 180))
        )
    }

    /// Where venue `n` is, and whether it has data: fixed by `n` alone.
    func place(_ venue: Int) -> (latitude: Double, longitude: Double, hasCells: Bool) {
        let key = UInt64(venue)
        let (latitude, longitude) = point(
            north: SyntheticCheckin.hashUnit(key ^ 0x4E4F_5254) - 0.5,
            east: SyntheticCheckin.hashUnit(key ^ 0x4541_5354) - 0.5)
        return (
            latitude, longitude,
            SyntheticCheckin.hashUnit(key ^ 0x4345_4C4C) < withCells
        )
    }

    /// The base URL of `--compare-endpoint`, without a trailing slash.
    var compareBase: String? {
        compareEndpoint.map { $0.hasSuffix("/") ? String($0.dropLast()) : $0 }
    }

    func run() async throws {
        // One connection a client, the probe's and one to spare; enough for --setup's requests.
        let connections = max(target.clients + 2, Self.setupConcurrency + 1)
        try await target.withHTTPClient(connections: connections) { client in try await run(client: client) }
    }

    private func run(client: HTTPClient) async throws {
        let endpoint = target.endpoint
        let checkinsAt = setup ? try await setUp(client: client, endpoint: endpoint) : nil
        if let compareBase { try await checkCompare(compareBase, client: client) }
        let ingest = try ingestPlan()
        if let ingest { try await checkProbeVenues(ingest.probeVenues, client: client, endpoint: endpoint) }

        let healthSeconds = max(3, target.duration / 4)
        note("reference: GET /health from \(target.clients) clients for \(healthSeconds) s…")
        let health = try await measure(client: client, until: .now + .seconds(healthSeconds)) { _ in
            HTTPClientRequest(url: endpoint + "/health")
        }
        let instant = at ?? checkinsAt ?? Date().addingTimeInterval(-300)
        let at = RFC3339.format(instant).replacingOccurrences(of: "+", with: "%2B")
        let share = ingest.map { String(format: ", %.0f %% ingest", $0.share * 100) } ?? ""
        note(
            "searching \(venues) venues (\(Int(withCells * 100)) % with data, \(cityKm) km square): radius \(Int(radius)) m, "
                + "at \(at)\(label.isEmpty ? "" : ", label \(label)")\(share), from \(target.clients) clients for "
                + "\(target.duration) s at \(endpoint)…"
        )
        let deadline = ContinuousClock.now + .seconds(target.duration)
        async let probed = visibilityProbe(ingest, client: client, endpoint: endpoint, until: deadline)
        let search = try await measure(
            client: client, until: deadline, ingest: ingest, request: searches(endpoint: endpoint, at: at))
        let visibility = try await probed

        var compared: Tally?
        if let compareBase {
            note(
                "compare: the same searches at \(compareBase) from \(target.clients) clients for \(target.duration) s…")
            compared = try await measure(
                client: client, until: .now + .seconds(target.duration),
                request: searches(endpoint: compareBase, at: at))
        }
        let report = Report(
            health: health, search: search, visibility: visibility, compare: compared, command: self)
        try LoadtestOutput.print(report, text: report.text, json: json)
    }

    func note(_ line: String) { LoadtestOutput.note(line, json: json) }

    /// The searches of this run at `endpoint`: client `index`'s n-th search is the same at every
    /// endpoint and in every run.
    private func searches(endpoint: String, at: String) -> @Sendable (inout SplitMix64) -> HTTPClientRequest {
        let filter =
            label.isEmpty ? "" : "&label=" + (label.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")
        return { random in
            let north = random.unit() - 0.5
            let (latitude, longitude) = point(north: north, east: random.unit() - 0.5)
            var request = HTTPClientRequest(
                url: endpoint
                    + String(
                        format: "/api/v2/venues?near=%.6f,%.6f&radius=%.0f&limit=20&at=%@%@", latitude, longitude,
                        radius, at, filter))
            request.headers.add(name: "Accept-Encoding", value: "gzip")
            return request
        }
    }

    /// Fails early when the compare server does not answer `/health`, or does not know the city's
    /// first venue (it should serve the same database).
    private func checkCompare(_ base: String, client: HTTPClient) async throws {
        for path in ["/health", "/api/v2/venues/\(prefix)0"] {
            let response: HTTPClientResponse
            do {
                response = try await client.execute(HTTPClientRequest(url: base + path), timeout: .seconds(30))
            } catch {
                throw CommandFailure("--compare-endpoint: GET \(base + path) failed: \(error)")
            }
            _ = try await response.body.collect(upTo: 16 << 20)
            guard response.status.code == 200 else {
                throw CommandFailure(
                    "--compare-endpoint: GET \(base + path) answered \(response.status.code); it must serve the same database as --url"
                )
            }
        }
    }

    // MARK: - Ingest

    /// What `--ingest-share` mixes into the main server's searches.
    struct IngestPlan: Sendable {
        /// The share of each client's requests that post a check-in.
        var share: Double
        /// The venues the clients post to: those with data, less the probe's.
        var venues: [Int]
        /// The venues the visibility probe posts to, in turn.
        var probeVenues: [Int]
    }

    /// Nil without `--ingest-share`; else the venues with data, split between the clients and the
    /// probe.
    private func ingestPlan() throws -> IngestPlan? {
        guard ingestShare > 0 else { return nil }
        let withData = (0..<venues).filter { place($0).hasCells }
        guard !withData.isEmpty else {
            throw CommandFailure("--ingest-share: none of the \(venues) venues has data at --with-cells \(withCells)")
        }
        let probeVenues = Array(withData.prefix(Self.probeVenueCount))
        // The probe's venues get no other check-ins, so that a count one higher is the probe's own
        // (unless the city has no other venue with data).
        let others = Array(withData.dropFirst(probeVenues.count))
        return IngestPlan(share: ingestShare, venues: others.isEmpty ? withData : others, probeVenues: probeVenues)
    }

    /// Fails early when a probe venue is missing or elsewhere: the check-ins would create it at the
    /// centre, where no search near its place finds it.
    private func checkProbeVenues(_ probeVenues: [Int], client: HTTPClient, endpoint: String) async throws {
        for venue in probeVenues {
            let path = "/api/v2/venues/\(prefix)\(venue)"
            let response = try await client.execute(HTTPClientRequest(url: endpoint + path), timeout: .seconds(30))
            let body = try await response.body.collect(upTo: 16 << 20)
            guard response.status.code == 200, let document = Self.object(body), Self.isAt(place(venue), document)
            else {
                throw CommandFailure(
                    "--ingest-share: GET \(path) answered \(response.status.code), not the venue in its place; "
                        + "create the city first (--setup)")
            }
        }
    }

    /// The visibility probe under `--ingest-share`, nil without it.
    private func visibilityProbe(
        _ plan: IngestPlan?, client: HTTPClient, endpoint: String, until deadline: ContinuousClock.Instant
    ) async throws -> VisibilityResult? {
        guard let plan else { return nil }
        return try await runVisibilityProbe(
            venues: plan.probeVenues, client: client, endpoint: endpoint, until: deadline)
    }

    // MARK: - Measuring

    /// What the clients of one phase measured.
    struct Tally: Sendable {
        /// Microseconds, of every search (or `/health`) answered.
        var histogram = Histogram<UInt64>(highestTrackableValue: 60_000_000, numberOfSignificantValueDigits: .three)
        var requests = 0
        var errors = 0
        var firstError: String?
        /// Answers with 200, those read for their results, and the results they held.
        var answered = 0
        var read = 0
        var results = 0
        /// Check-ins posted under `--ingest-share`, those that failed, and the microseconds of
        /// every one answered.
        var ingests = 0
        var ingestErrors = 0
        var ingestHistogram = Histogram<UInt64>(
            highestTrackableValue: 60_000_000, numberOfSignificantValueDigits: .three)
        var seconds = 0.0

        mutating func merge(_ other: Tally) {
            histogram.add(other.histogram)
            requests += other.requests
            errors += other.errors
            firstError = firstError ?? other.firstError
            answered += other.answered
            read += other.read
            results += other.results
            ingests += other.ingests
            ingestErrors += other.ingestErrors
            ingestHistogram.add(other.ingestHistogram)
        }

        /// Counts a failed search, or with `ingest` a failed check-in (its message then starts
        /// with "ingest: ").
        mutating func fail(_ message: String, ingest: Bool = false) {
            if ingest { ingestErrors += 1 } else { errors += 1 }
            firstError = firstError ?? (ingest ? "ingest: " : "") + message
        }
    }

    /// Runs the clients until `deadline`, each sending `request`'s requests one after another
    /// (with `ingest`, a share of them check-ins instead, drawn apart so that the requests are
    /// the same).
    private func measure(
        client: HTTPClient, until deadline: ContinuousClock.Instant, ingest: IngestPlan? = nil,
        request: @escaping @Sendable (inout SplitMix64) -> HTTPClientRequest
    ) async throws -> Tally {
        let started = ContinuousClock.now
        var total = try await withThrowingTaskGroup(of: Tally.self) { group in
            for index in 0..<target.clients {
                group.addTask {
                    var tally = Tally()
                    var random = SplitMix64(seed: 0x5EA2_C400 &+ UInt64(index))
                    var mixing = SplitMix64(seed: 0x1A6E_C400 &+ UInt64(index))
                    var generator = SyntheticCheckin(
                        seed: 0x1A6E_0000 &+ UInt64(index), samples: ReadLoadtest.samples, venues: venues,
                        venuePrefix: prefix)
                    while ContinuousClock.now < deadline {
                        if let ingest, mixing.unit() < ingest.share {
                            let venue = ingest.venues[Int(mixing.next() % UInt64(ingest.venues.count))]
                            let body = generator.next(
                                venue: UInt64(venue), device: UInt64.random(in: Self.ingestDevices))
                            await post(body, client: client, tally: &tally)
                        } else {
                            await search(request(&random), client: client, tally: &tally)
                        }
                    }
                    return tally
                }
            }
            return try await group.reduce(into: Tally()) { $0.merge($1) }
        }
        total.seconds = Double(IngestLoadtest.microseconds(ContinuousClock.now - started)) / 1e6
        return total
    }

    /// Sends one search (or `/health`) and tallies it.
    private func search(_ request: HTTPClientRequest, client: HTTPClient, tally: inout Tally) async {
        let start = ContinuousClock.now
        tally.requests += 1
        do {
            let response = try await client.execute(request, timeout: .seconds(30))
            let body = try await response.body.collect(upTo: 16 << 20)
            _ = tally.histogram.record(IngestLoadtest.microseconds(ContinuousClock.now - start))
            guard response.status.code == 200 else {
                tally.fail("HTTP \(response.status.code): \(String(buffer: body).prefix(300))")
                return
            }
            // Every 16th answer is read for its results: parsing every one took CPU the server
            // shares.
            tally.answered += 1
            if tally.answered % 16 == 1,
                let object = try? JSONSerialization.jsonObject(with: Data(buffer: body)) as? [String: Any],
                let results = object["results"] as? [Any]
            {
                tally.results += results.count
                tally.read += 1
            }
        } catch {
            tally.fail("\(error)")
        }
    }

    /// Posts one check-in (gzip) to the main server and tallies it apart from the searches.
    private func post(_ body: [UInt8], client: HTTPClient, tally: inout Tally) async {
        tally.ingests += 1
        let start = ContinuousClock.now
        do {
            let response = try await client.execute(
                try IngestLoadtest.gzippedCheckin(body, endpoint: target.endpoint), timeout: .seconds(30))
            let answer = try await response.body.collect(upTo: 1 << 20)
            _ = tally.ingestHistogram.record(IngestLoadtest.microseconds(ContinuousClock.now - start))
            let code = response.status.code
            if code != 201 && code != 200 {
                tally.fail("HTTP \(code): \(String(buffer: answer).prefix(300))", ingest: true)
            }
        } catch {
            tally.fail("\(error)", ingest: true)
        }
    }

    // MARK: - Report

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

        /// The check-ins `--ingest-share` posted while the main server was searched.
        struct Ingest: Encodable {
            var share: Double
            var requests: Int
            var errors: Int
            var perSecond: Double
            var latencyMs: ReadLoadtest.Report.Latency
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
        var ingest: Ingest?
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
            if command.ingestShare > 0 {
                ingest = Ingest(
                    share: command.ingestShare, requests: search.ingests, errors: search.ingestErrors,
                    perSecond: Double(search.ingests) / max(search.seconds, 1e-9),
                    latencyMs: ReadLoadtest.Report.Latency(search.ingestHistogram))
            }
            visibleToSearch = visibility.map {
                let seen = Int($0.visible.totalCount)
                return Visibility(
                    probes: $0.probes, seen: seen, unseen: $0.unseen, failed: $0.failed,
                    ms: seen > 0 ? ReadLoadtest.Report.Latency($0.visible) : nil,
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
            if let ingest {
                let latency = ingest.latencyMs
                lines.append(
                    String(format: "ingest  %8.0f/s  ", ingest.perSecond)
                        + "p50 \(ms(latency.p50))  p99 \(ms(latency.p99))  p99.9 \(ms(latency.p999))  "
                        + "max \(ms(latency.max))  (\(ingest.requests) check-ins, \(ingest.errors) errors; "
                        + "share \(ingest.share))")
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
