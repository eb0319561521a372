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
/// reference; optionally with check-ins mixed in (`--ingest-share`, with the visibility probe),
/// grid and page reads (`--grid-share`, `--page-share`)
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
            to that search's is "visible to search" (p50/p99/max); then it reads the venue's grid every 20 ms \
            until its ETag differs from the one read before the POST (the worker has judged the check-in): \
            "visible in its grid". A probe that does not see it within 10 s, or whose request fails, counts \
            as a failure. The probe's venues must exist in their \
            places before anything is measured (else: --setup).

            --grid-share G and --page-share P make those shares of each client's requests to the main server \
            a GET of the grid (/api/v2/venues/{id}/loudness) or of the page (/venues/{id}) of a random venue \
            with data, gzip accepted, an error unless it answers 200; each is reported apart from the \
            searches, with its ratio to /health. With --ingest-share this is the mix people make: searches, \
            grid and page reads, check-ins (scripts/bench-mix.sh runs it and adds the aggregation worker's \
            backlog and PostgreSQL's deadlocks).

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
    @Option(
        help:
            "Share of each client's requests, 0…0.9, that read the grid of a random venue with data (GET /api/v2/venues/{id}/loudness) instead of searching."
    )
    var gridShare = 0.0
    @Option(
        help:
            "Share of each client's requests, 0…0.9, that load the page of a random venue with data (GET /venues/{id}) instead of searching."
    )
    var pageShare = 0.0
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
        for (name, share) in [("--grid-share", gridShare), ("--page-share", pageShare)] {
            guard share.isFinite, (0...0.9).contains(share) else {
                throw ValidationError("\(name) must be from 0 to 0.9")
            }
            guard share == 0 || withCells > 0 else {
                throw ValidationError("\(name) reads venues with data: it needs --with-cells above 0")
            }
        }
        guard ingestShare + gridShare + pageShare <= 0.9 else {
            throw ValidationError("--ingest-share, --grid-share and --page-share together must leave a tenth to search")
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

    func run(client: HTTPClient) async throws {
        let endpoint = target.endpoint
        let checkinsAt = setup ? try await setUp(client: client, endpoint: endpoint) : nil
        if let compareBase { try await checkCompare(compareBase, client: client) }
        let ingest = try ingestPlan()
        if let ingest { try await checkProbeVenues(ingest.probeVenues, client: client, endpoint: endpoint) }
        let mix = Mix(
            ingest: ingest, gridShare: gridShare, pageShare: pageShare,
            readVenues: gridShare + pageShare > 0 ? (0..<venues).filter { place($0).hasCells } : [])
        guard gridShare + pageShare == 0 || !mix.readVenues.isEmpty else {
            throw CommandFailure(
                "--grid-share, --page-share: none of the \(venues) venues has data at --with-cells \(withCells)")
        }

        let healthSeconds = max(3, target.duration / 4)
        note("reference: GET /health from \(target.clients) clients for \(healthSeconds) s…")
        let health = try await measure(client: client, until: .now + .seconds(healthSeconds)) { _ in
            HTTPClientRequest(url: endpoint + "/health")
        }
        let instant = at ?? checkinsAt ?? Date().addingTimeInterval(-300)
        let at = RFC3339.format(instant).replacingOccurrences(of: "+", with: "%2B")
        let share =
            (ingest.map { String(format: ", %.0f %% ingest", $0.share * 100) } ?? "")
            + (gridShare > 0 ? String(format: ", %.0f %% grids", gridShare * 100) : "")
            + (pageShare > 0 ? String(format: ", %.0f %% venue pages", pageShare * 100) : "")
        note(
            "searching \(venues) venues (\(Int(withCells * 100)) % with data, \(cityKm) km square): radius \(Int(radius)) m, "
                + "at \(at)\(label.isEmpty ? "" : ", label \(label)")\(share), from \(target.clients) clients for "
                + "\(target.duration) s at \(endpoint)…"
        )
        let deadline = ContinuousClock.now + .seconds(target.duration)
        async let probed = visibilityProbe(ingest, client: client, endpoint: endpoint, until: deadline)
        let search = try await measure(
            client: client, until: deadline, mix: mix, request: searches(endpoint: endpoint, at: at))
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
    func searches(endpoint: String, at: String) -> @Sendable (inout SplitMix64) -> HTTPClientRequest {
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
    func checkCompare(_ base: String, client: HTTPClient) async throws {
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
}
