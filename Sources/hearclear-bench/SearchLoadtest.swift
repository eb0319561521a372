import ArgumentParser
import AsyncHTTPClient
import Foundation
import HearClearCLI
import HearClearEngine
import Histogram
import NIOCore
import NIOFoundationCompat

struct SearchLoadtest: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "search",
        abstract: "Search venues near random points of a synthetic city and report throughput and latency.",
        discussion: """
            The city: --venues venues <prefix>0 … <prefix>N-1 spread uniformly over a square of --city-km \
            around central Sydney (zone Australia/Sydney), a --with-cells share of them with data. --setup \
            creates them (PUT) and gives each venue with data three check-ins of the last minutes from three \
            devices (levels from 60 to 90 dB, a third of them quiet), then waits until a sample of them has \
            cells; without it the city must exist already.

            First every client sends GET /health for a quarter of --duration (at least 3 s), the reference \
            figure of this run; then every client sends, one after another over a kept-alive connection, \
            GET /api/v2/venues?near=P&radius=R&at=T&label=L&limit=20 with P uniform over the city (seeded, \
            the same in every run), R = --radius, L = --label and T = --at, by default five minutes \
            ago (the hour of the check-ins --setup sends; give the time of an earlier set-up's check-ins \
            to measure a city set up before). A search is an error unless it answers 200. Prints searches/s, p50/p99/p99.9/max \
            latency (HdrHistogram), the mean number of results (of every 16th answer), and both as ratios \
            to /health.

            Only loopback or your own test hosts are fit targets.
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
        help: "The instant every search asks about (RFC 3339); by default five minutes ago.",
        transform: { text in
            guard let instant = RFC3339.parse(text) else {
                throw ValidationError("--at must be an RFC 3339 instant, e.g. 2026-11-24T00:25:00Z")
            }
            return instant.date
        })
    var at: Date?
    @Flag(help: "Before measuring, create the city (idempotent: venues already with check-ins keep them).")
    var setup = false
    @Flag(help: "Print the figures as one JSON object.") var json = false

    static let centre = (latitude: -33.87, longitude: 151.21)
    /// Check-ins `--setup` gives a venue with data, each from its own device.
    static let setupCheckins = 3
    /// Setup devices are `bench-device-<setupDevices + 3·venue + k>-…`, apart from other loadtests'.
    static let setupDevices: UInt64 = 10_000_000

    func validate() throws {
        guard (1...1_000_000).contains(venues) else { throw ValidationError("--venues must be 1…1000000") }
        guard withCells.isFinite, (0...1).contains(withCells) else { throw ValidationError("--with-cells must be 0…1") }
        guard cityKm.isFinite, cityKm > 0, cityKm <= 500 else { throw ValidationError("--city-km must be in (0, 500]") }
        guard radius.isFinite, radius > 0, radius <= 50_000 else {
            throw ValidationError("--radius must be in (0, 50000]")
        }
        try LoadtestOutput.validate(prefix: prefix)
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

    func run() async throws {
        try await target.withHTTPClient { client in try await run(client: client) }
    }

    private func run(client: HTTPClient) async throws {
        let endpoint = target.endpoint
        if setup { try await setUp(client: client, endpoint: endpoint) }
        let healthSeconds = max(3, target.duration / 4)
        note("reference: GET /health from \(target.clients) clients for \(healthSeconds) s…")
        let health = try await measure(client: client, seconds: healthSeconds) { _ in
            HTTPClientRequest(url: endpoint + "/health")
        }
        let at = RFC3339.format(self.at ?? Date().addingTimeInterval(-300)).replacingOccurrences(of: "+", with: "%2B")
        let filter =
            label.isEmpty ? "" : "&label=" + (label.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")
        note(
            "searching \(venues) venues (\(Int(withCells * 100)) % with data, \(cityKm) km square): radius \(Int(radius)) m, "
                + "at \(at)\(label.isEmpty ? "" : ", label \(label)"), from \(target.clients) clients for \(target.duration) s…"
        )
        let search = try await measure(client: client, seconds: target.duration) { random in
            let north = random.unit() - 0.5
            let (latitude, longitude) = point(north: north, east: random.unit() - 0.5)
            var request = HTTPClientRequest(
                url: endpoint
                    + String(
                        format: "/api/v2/venues?near=%.6f,%.6f&radius=%.0f&limit=20&at=%@%@", latitude, longitude,
                        radius,
                        at, filter))
            request.headers.add(name: "Accept-Encoding", value: "gzip")
            return request
        }
        let report = Report(health: health, search: search)
        try LoadtestOutput.print(report, text: report.text, json: json)
    }

    private func note(_ line: String) { LoadtestOutput.note(line, json: json) }

    // MARK: - Measuring

    struct Tally: Sendable {
        var histogram = Histogram<UInt64>(highestTrackableValue: 60_000_000, numberOfSignificantValueDigits: .three)
        var requests = 0
        var errors = 0
        var firstError: String?
        /// Answers with 200, those read for their results, and the results they held.
        var answered = 0
        var read = 0
        var results = 0
        var seconds = 0.0

        mutating func merge(_ other: Tally) {
            histogram.add(other.histogram)
            requests += other.requests
            errors += other.errors
            firstError = firstError ?? other.firstError
            answered += other.answered
            read += other.read
            results += other.results
        }
    }

    private func measure(
        client: HTTPClient, seconds: Int, request: @escaping @Sendable (inout SplitMix64) -> HTTPClientRequest
    ) async throws -> Tally {
        let started = ContinuousClock.now
        let deadline = started + .seconds(seconds)
        var total = try await withThrowingTaskGroup(of: Tally.self) { group in
            for index in 0..<target.clients {
                group.addTask {
                    var tally = Tally()
                    var random = SplitMix64(seed: 0x5EA2_C400 &+ UInt64(index))
                    while ContinuousClock.now < deadline {
                        let next = request(&random)
                        let start = ContinuousClock.now
                        tally.requests += 1
                        do {
                            let response = try await client.execute(next, timeout: .seconds(30))
                            let body = try await response.body.collect(upTo: 16 << 20)
                            _ = tally.histogram.record(IngestLoadtest.microseconds(ContinuousClock.now - start))
                            guard response.status.code == 200 else {
                                tally.errors += 1
                                tally.firstError =
                                    tally.firstError
                                    ?? "HTTP \(response.status.code): \(String(buffer: body).prefix(300))"
                                continue
                            }
                            // Every 16th answer is read for its results: parsing every one took
                            // CPU the server shares.
                            tally.answered += 1
                            if tally.answered % 16 == 1,
                                let object = try? JSONSerialization.jsonObject(with: Data(buffer: body))
                                    as? [String: Any],
                                let results = object["results"] as? [Any]
                            {
                                tally.results += results.count
                                tally.read += 1
                            }
                        } catch {
                            tally.errors += 1
                            tally.firstError = tally.firstError ?? "\(error)"
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

    // MARK: - Setup

    private func setUp(client: HTTPClient, endpoint: String) async throws {
        note("setup: \(venues) venues \(prefix)0 … \(prefix)\(venues - 1)…")
        let clients = target.clients
        let progress = ProgressBar(total: venues, label: "venues")
        let done = try await withThrowingTaskGroup(of: Int.self) { group in
            for worker in 0..<clients {
                group.addTask {
                    var generator = SyntheticCheckin(
                        seed: 0x5EA2_0000 &+ UInt64(worker), samples: ReadLoadtest.samples, venues: venues,
                        venuePrefix: prefix)
                    var count = 0
                    for venue in stride(from: worker, to: venues, by: clients) {
                        try await prepare(venue: venue, generator: &generator, client: client, endpoint: endpoint)
                        count += 1
                        if worker == 0 { progress.update(count * clients) }
                    }
                    return count
                }
            }
            return try await group.reduce(0, +)
        }
        progress.finish(done)
        // Wait (at most 120 s) until a sample of the venues with data answers with cells.
        let sample = (0..<venues).lazy.filter { place($0).hasCells }.prefix(20)
        let deadline = ContinuousClock.now + .seconds(120)
        for venue in sample {
            while ContinuousClock.now < deadline {
                let response = try await client.execute(
                    HTTPClientRequest(url: endpoint + "/api/v2/venues/\(prefix)\(venue)/loudness"),
                    timeout: .seconds(30))
                _ = try await response.body.collect(upTo: 16 << 20)
                if response.status.code == 200 { break }
                try await Task.sleep(for: .milliseconds(250))
            }
        }
        note("setup: done")
    }

    private func prepare(venue: Int, generator: inout SyntheticCheckin, client: HTTPClient, endpoint: String)
        async throws
    {
        let place = place(venue)
        let path = "/api/v2/venues/\(prefix)\(venue)"
        var put = HTTPClientRequest(url: endpoint + path)
        put.method = .PUT
        put.headers.add(name: "Content-Type", value: "application/json")
        let details: [String: Any] = [
            "name": "Search bench venue \(venue)", "latitude": place.latitude, "longitude": place.longitude,
            "timezone": "Australia/Sydney", "category": ["pub", "cafe", "restaurant", "bar"][venue % 4],
        ]
        put.body = .bytes(ByteBuffer(data: try JSONSerialization.data(withJSONObject: details)))
        let response = try await client.execute(put, timeout: .seconds(30))
        let body = try await response.body.collect(upTo: 1 << 20)
        guard response.status.code == 200 || response.status.code == 201 else {
            throw CommandFailure(
                "setup: PUT \(path) answered \(response.status.code): \(String(buffer: body).prefix(300))")
        }
        guard place.hasCells,
            let document = try? JSONSerialization.jsonObject(with: Data(buffer: body)) as? [String: Any],
            (document["checkins"] as? Int ?? 0) < Self.setupCheckins
        else { return }
        for k in 0..<Self.setupCheckins {
            let device = Self.setupDevices + UInt64(venue * Self.setupCheckins + k)
            let checkin = generator.next(venue: UInt64(venue), device: device)
            let posted = try await client.execute(
                try IngestLoadtest.gzippedCheckin(checkin, endpoint: endpoint), timeout: .seconds(30))
            let answer = try await posted.body.collect(upTo: 1 << 20)
            guard posted.status.code == 201 || posted.status.code == 200 else {
                throw CommandFailure(
                    "setup: a check-in at \(prefix)\(venue) answered \(posted.status.code): \(String(buffer: answer).prefix(300))"
                )
            }
        }
    }

    // MARK: - Report

    struct Report: Encodable {
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

        var health: Figures
        var search: Figures
        var meanResults: Double
        var throughputRatio: Double
        var p99Ratio: Double
        var firstError: String?

        init(health: Tally, search: Tally) {
            self.health = Figures(health)
            self.search = Figures(search)
            meanResults = Double(search.results) / Double(max(1, search.read))
            throughputRatio = self.search.perSecond / max(self.health.perSecond, 1e-9)
            p99Ratio = self.search.p99ms / max(self.health.p99ms, 1e-9)
            firstError = search.firstError ?? health.firstError
        }

        var text: String {
            func line(_ name: String, _ f: Figures) -> String {
                String(
                    format:
                        "%@ %8.0f/s  p50 %.2f ms  p99 %.2f ms  p99.9 %.2f ms  max %.2f ms  (%d requests, %d errors)",
                    name, f.perSecond, f.p50ms, f.p99ms, f.p999ms, f.maxMs, f.requests, f.errors)
            }
            var lines = [
                line("health ", health), line("search ", search),
                String(
                    format: "search/health: throughput %.1f %%, p99 ×%.1f; %.1f results a search",
                    throughputRatio * 100,
                    p99Ratio, meanResults),
            ]
            if let firstError { lines.append("first error: \(firstError)") }
            return lines.joined(separator: "\n")
        }
    }
}
