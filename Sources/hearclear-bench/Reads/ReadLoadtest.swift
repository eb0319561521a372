import ArgumentParser
import AsyncHTTPClient
import Foundation
import HearClearCLI
import Histogram
import LoudnessCore
import NIOCore
import NIOFoundationCompat

struct ReadLoadtest: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "read",
        abstract:
            "Read venue grids, venue documents, bands and venue pages from concurrent clients and report throughput and latency.",
        discussion: """
            Each client sends one request after another over a kept-alive connection, choosing each by \
            its own seeded pseudo-random sequence (the same in every run) over --mix: \
            GET /api/v2/venues/{id}/loudness (grid), GET /api/v2/venues/{id} (venue), GET /api/v2/bands \
            (bands), the pages for people GET /venues/{id} (page) and GET /venues/{id}/week.svg (week), and \
            GET /health (health), with venues uniform over <prefix>0 … <prefix>N-1 (--venues, --prefix). A read is an \
            error unless it answers 200 or 304. Prints requests/s, reads/s, errors by kind and read latency \
            p50/p99/p99.9/max (HdrHistogram).

            --ingest-share makes that share of the requests a POST /api/v2/checkins of a fresh synthetic \
            check-in (gzip, as `loadtest ingest` sends it) to one of the same venues, an error unless it \
            answers 201 or 200, so that the read cache is invalidated under load; its latency is reported \
            apart. A staleness probe then posts one more check-in, from a new device, every 250 ms, and \
            polls the venue's document every 20 ms until its check-in count shows it: the time from the \
            201 to that read is the read's staleness after a write (p50/p99/max).

            --setup first makes sure every venue exists and has cells: a venue whose grid does not answer \
            200 is created or replaced (PUT, time zone UTC, on a lattice of 0.001° near central Sydney) \
            and given three check-ins of the past hour from three devices; then a sample of grids is \
            polled, for at most 60 s, until they answer 200. Without it, the venues must already have \
            cells, or grid reads fail with 404.

            --health first sends GET /health alone from every client for a quarter of --duration (at least \
            3 s), the reference of the same run, and prints the reads/s as a ratio to it.

            --json prints the same figures as one JSON object (progress lines go to standard error). \
            Only loopback or your own test hosts are fit targets. The server rate-limits this tool like \
            any client (one address, few devices): start it with --rate-exempt 127.0.0.1,::1 (as \
            `make run` does) to measure it rather than its limits.
            """
    )

    @OptionGroup var target: LoadtestOptions
    var clients: Int { target.clients }
    var duration: Int { target.duration }

    @Option(help: "Venues to read: their ids are <prefix>0 … <prefix>N-1.")
    var venues = 1000

    @Option(help: "Prefix of the venue ids (A–Z a–z 0–9 . _ ~ : -).")
    var prefix = "read-"

    @Option(
        help: ArgumentHelp(
            "Relative weights of the reads: grid (GET /api/v2/venues/{id}/loudness), venue (GET /api/v2/venues/{id}), bands (GET /api/v2/bands), page (GET /venues/{id}), week (GET /venues/{id}/week.svg), health (GET /health); a kind left out weighs 0.",
            valueName: "grid=W,venue=W,bands=W,page=W,week=W,health=W"))
    var mix = "grid=8,venue=1,bands=1"

    @Option(
        help:
            "Share of the requests, 0…0.5, that post a fresh synthetic check-in to one of the venues instead of reading; above 0 the staleness probe runs too."
    )
    var ingestShare = 0.0

    @Flag(inversion: .prefixedNo, help: "Send Accept-Encoding: gzip with the reads, as phones do.")
    var gzip = true

    @Flag(help: "Before measuring, create the venues and give them check-ins until their grids answer 200.")
    var setup = false

    @Flag(help: "First measure GET /health from every client, and print reads/s as a ratio to it.")
    var health = false

    @Flag(help: "Print the figures as one JSON object.")
    var json = false

    /// Samples per synthetic check-in (five minutes, ending two minutes ago).
    static let samples = 300
    /// Check-ins `--setup` gives each venue, each from its own device.
    static let setupCheckins = 3
    /// Setup devices are `bench-device-<setupDevices + 3·venue + k>-…`, apart from ingest's 0…4999.
    static let setupDevices: UInt64 = 100_000

    func validate() throws {
        guard venues > 0, venues <= 1_000_000 else { throw ValidationError("--venues must be 1…1000000") }
        try LoadtestOutput.validate(prefix: prefix)
        guard ingestShare.isFinite, (0...0.5).contains(ingestShare) else {
            throw ValidationError("--ingest-share must be from 0 to 0.5")
        }
        _ = try Mix(mix)
    }

    /// The characters of the server's venue id rule.
    static let venueIDCharacters = CharacterSet(
        charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._~:-")

    func run() async throws {
        let mix = try Mix(mix)
        try await target.withHTTPClient { client in try await run(client: client, mix: mix) }
    }

    func run(client: HTTPClient, mix: Mix) async throws {
        let endpoint = target.endpoint
        if setup { try await setUp(client: client, endpoint: endpoint) }

        let healthPerSecond: Double? =
            if health { try await healthReference(client: client, endpoint: endpoint) } else { nil }
        let share = ingestShare > 0 ? String(format: ", %.0f%% ingest", ingestShare * 100) : ""
        note("reading \(mix)\(share) from \(clients) clients over \(venues) venues for \(duration) s at \(endpoint)…")
        let started = ContinuousClock.now
        let deadline = started + .seconds(duration)
        let probing = ingestShare > 0
        let (results, staleness) = try await withThrowingTaskGroup(of: Outcome.self) { group in
            for index in 0..<clients {
                group.addTask {
                    .client(
                        try await runClient(
                            index: index, client: client, endpoint: endpoint, mix: mix, until: deadline,
                            ingestShare: ingestShare)
                    )
                }
            }
            if probing {
                group.addTask { .probe(try await runProbe(client: client, endpoint: endpoint, until: deadline)) }
            }
            var total = ClientResult()
            var staleness: ProbeResult?
            for try await outcome in group {
                switch outcome {
                case .client(let result): total.merge(result)
                case .probe(let result): staleness = result
                }
            }
            return (total, staleness)
        }
        let seconds = Double(IngestLoadtest.microseconds((results.finished ?? started) - started)) / 1e6
        let report = Report(
            results, staleness: staleness, seconds: seconds, mix: mix, healthPerSecond: healthPerSecond, command: self)
        try LoadtestOutput.print(report, text: report.text, json: json)
    }

    /// `--health`: `GET /health` from as many clients for a quarter of the duration (at least
    /// 3 s), the reference the reads are compared with; its requests a second.
    func healthReference(client: HTTPClient, endpoint: String) async throws -> Double {
        let seconds = max(3, duration / 4)
        note("reference: GET /health from \(clients) clients for \(seconds) s…")
        let reference = try Mix("health=1")
        let begun = ContinuousClock.now
        let results = try await withThrowingTaskGroup(of: ClientResult.self) { group in
            for index in 0..<clients {
                group.addTask {
                    try await runClient(
                        index: index, client: client, endpoint: endpoint, mix: reference,
                        until: begun + .seconds(seconds), ingestShare: 0)
                }
            }
            var total = ClientResult()
            for try await result in group { total.merge(result) }
            return total
        }
        let elapsed = Double(IngestLoadtest.microseconds((results.finished ?? begun) - begun)) / 1e6
        let failed = results.errors.reduce(0, +)
        guard failed == 0 else {
            throw CommandFailure("GET /health failed \(failed) times: \(results.firstError ?? "")")
        }
        let healthPerSecond = Double(results.requests.reduce(0, +)) / elapsed
        note(String(format: "health: %.0f requests/s", healthPerSecond))
        return healthPerSecond
    }

    func note(_ line: String) { LoadtestOutput.note(line, json: json) }
}
