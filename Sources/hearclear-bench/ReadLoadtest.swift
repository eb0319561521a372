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

    private func run(client: HTTPClient, mix: Mix) async throws {
        let endpoint = target.endpoint
        if setup { try await setUp(client: client, endpoint: endpoint) }

        var healthPerSecond: Double?
        if health {
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
            healthPerSecond = Double(results.requests.reduce(0, +)) / elapsed
            note(String(format: "health: %.0f requests/s", healthPerSecond!))
        }
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

    private func note(_ line: String) { LoadtestOutput.note(line, json: json) }

    // MARK: - The requests

    enum Kind: Int, CaseIterable, Sendable {
        case grid, venue, bands, page, week, health, ingest

        var name: String { ["grid", "venue", "bands", "page", "week", "health", "ingest"][rawValue] }
        /// The kinds `--mix` weighs.
        static let reads: [Kind] = [.grid, .venue, .bands, .page, .week, .health]
    }

    /// `--mix`: the relative weights of the reads, by ``Kind/rawValue``.
    struct Mix: Sendable, CustomStringConvertible {
        var weights = [Int](repeating: 0, count: Kind.reads.count)

        var total: Int { weights.reduce(0, +) }
        var description: String {
            Kind.reads.filter { weights[$0.rawValue] > 0 }.map { "\($0.name)=\(weights[$0.rawValue])" }
                .joined(separator: ",")
        }

        init(_ text: String) throws {
            var seen = Set<String>()
            for item in text.split(separator: ",", omittingEmptySubsequences: false) {
                let parts = item.split(separator: "=", omittingEmptySubsequences: false)
                let name = parts[0].trimmingCharacters(in: .whitespaces)
                guard parts.count == 2, let weight = Int(parts[1].trimmingCharacters(in: .whitespaces)),
                    (0...1_000_000).contains(weight)
                else {
                    throw ValidationError(
                        "--mix: \"\(item)\" is not name=weight with a weight from 0 to 1000000, e.g. grid=8,venue=1,bands=1"
                    )
                }
                guard seen.insert(name).inserted else { throw ValidationError("--mix names \(name) twice") }
                guard let kind = Kind.reads.first(where: { $0.name == name }) else {
                    throw ValidationError(
                        "--mix: unknown read \"\(name)\"; the reads are \(Kind.reads.map(\.name).joined(separator: ", "))"
                    )
                }
                weights[kind.rawValue] = weight
            }
            guard total > 0 else { throw ValidationError("--mix must give at least one read a weight above 0") }
        }

        /// The next request: ingest with probability `ingestShare`, else a read by weight.
        func pick(_ random: inout SplitMix64, ingestShare: Double) -> Kind {
            if ingestShare > 0, random.unit() < ingestShare { return .ingest }
            var draw = Int(random.next() % UInt64(total))
            for kind in Kind.reads {
                if draw < weights[kind.rawValue] { return kind }
                draw -= weights[kind.rawValue]
            }
            return Kind.reads.last!
        }
    }

    /// `GET` of a read, with `Accept-Encoding: gzip` under `--gzip`.
    private func read(_ path: String, endpoint: String) -> HTTPClientRequest {
        var request = HTTPClientRequest(url: endpoint + path)
        if gzip { request.headers.add(name: "Accept-Encoding", value: "gzip") }
        return request
    }

    private func venuePath(_ venue: UInt64) -> String { "/api/v2/venues/\(prefix)\(venue)" }

    // MARK: - Clients

    enum Outcome: Sendable {
        case client(ClientResult)
        case probe(ProbeResult)
    }

    struct ClientResult: Sendable {
        var requests = [Int](repeating: 0, count: Kind.allCases.count)
        var errors = [Int](repeating: 0, count: Kind.allCases.count)
        var firstError: String?
        /// Microseconds, of every read answered.
        var reads = Histogram<UInt64>(highestTrackableValue: 60_000_000, numberOfSignificantValueDigits: .three)
        /// Microseconds, of every ingest post answered.
        var ingest = Histogram<UInt64>(highestTrackableValue: 60_000_000, numberOfSignificantValueDigits: .three)
        /// When the last client's last request ended.
        var finished: ContinuousClock.Instant?

        mutating func merge(_ other: ClientResult) {
            for kind in Kind.allCases {
                requests[kind.rawValue] += other.requests[kind.rawValue]
                errors[kind.rawValue] += other.errors[kind.rawValue]
            }
            firstError = firstError ?? other.firstError
            reads.add(other.reads)
            ingest.add(other.ingest)
            if let end = other.finished { finished = max(finished ?? end, end) }
        }

        mutating func fail(_ kind: Kind, _ message: String) {
            errors[kind.rawValue] += 1
            if firstError == nil { firstError = "\(kind.name): \(message)" }
        }
    }

    func runClient(
        index: Int, client: HTTPClient, endpoint: String, mix: Mix, until deadline: ContinuousClock.Instant,
        ingestShare: Double
    ) async throws -> ClientResult {
        var result = ClientResult()
        var random = SplitMix64(seed: 0x5EAD_0000 &+ UInt64(index))
        var generator = SyntheticCheckin(
            seed: 0x1A6E_0000 &+ UInt64(index), samples: Self.samples, venues: venues, venuePrefix: prefix)
        while ContinuousClock.now < deadline {
            let kind = mix.pick(&random, ingestShare: ingestShare)
            let request: HTTPClientRequest
            switch kind {
            case .grid: request = read(venuePath(random.next() % UInt64(venues)) + "/loudness", endpoint: endpoint)
            case .venue: request = read(venuePath(random.next() % UInt64(venues)), endpoint: endpoint)
            case .bands: request = read("/api/v2/bands", endpoint: endpoint)
            case .page: request = read("/venues/\(prefix)\(random.next() % UInt64(venues))", endpoint: endpoint)
            case .week:
                request = read("/venues/\(prefix)\(random.next() % UInt64(venues))/week.svg", endpoint: endpoint)
            case .health: request = read("/health", endpoint: endpoint)
            case .ingest: request = try IngestLoadtest.gzippedCheckin(generator.next(), endpoint: endpoint)
            }
            result.requests[kind.rawValue] += 1
            let start = ContinuousClock.now
            do {
                let response = try await client.execute(request, timeout: .seconds(30))
                let answer = try await response.body.collect(upTo: 16 << 20)
                let latency = IngestLoadtest.microseconds(ContinuousClock.now - start)
                let code = response.status.code
                if kind == .ingest {
                    _ = result.ingest.record(latency)
                    if code != 201 && code != 200 {
                        result.fail(kind, "HTTP \(code): \(String(buffer: answer).prefix(300))")
                    }
                } else {
                    _ = result.reads.record(latency)
                    if code != 200 && code != 304 {
                        result.fail(kind, "HTTP \(code): \(String(buffer: answer).prefix(300))")
                    }
                }
            } catch {
                result.fail(kind, "\(error)")
            }
        }
        result.finished = ContinuousClock.now
        return result
    }

    // MARK: - The staleness probe

    struct ProbeResult: Sendable {
        /// Microseconds from a probe's 201 to the first read of its venue that counts it.
        var staleness = Histogram<UInt64>(highestTrackableValue: 600_000_000, numberOfSignificantValueDigits: .three)
        /// Probes whose check-in did not show within `probeLimit`.
        var unseen = 0
        /// Probes whose read or post failed.
        var failed = 0
    }

    static let probeInterval: Duration = .milliseconds(250)
    static let probePoll: Duration = .milliseconds(20)
    static let probeLimit: Duration = .seconds(30)

    /// Every 250 ms: reads a random venue's check-in count, posts a check-in there from a new device,
    /// then reads the venue every 20 ms until the count is one higher.
    func runProbe(client: HTTPClient, endpoint: String, until deadline: ContinuousClock.Instant) async throws
        -> ProbeResult
    {
        var result = ProbeResult()
        var random = SplitMix64(seed: 0x57A1_E000)
        var generator = SyntheticCheckin(seed: 0x57A1_E001, samples: Self.samples, venues: venues, venuePrefix: prefix)
        // A device of its own for every probe, in this run and the next: milliseconds since 1970 × 1000.
        let firstDevice = UInt64(Date().timeIntervalSince1970 * 1000) * 1000
        var probes: UInt64 = 0
        while ContinuousClock.now < deadline {
            let next = ContinuousClock.now + Self.probeInterval
            let venue = random.next() % UInt64(venues)
            probes += 1
            let body = generator.next(venue: venue, device: firstDevice + probes)
            do {
                if let staleness = try await probe(venue: venue, body: body, client: client, endpoint: endpoint) {
                    _ = result.staleness.record(IngestLoadtest.microseconds(staleness))
                } else {
                    result.unseen += 1
                }
            } catch is CancellationError {
                throw CancellationError()
            } catch {
                result.failed += 1
            }
            if ContinuousClock.now < next { try await Task.sleep(until: next) }
        }
        return result
    }

    /// One probe: the time from the post's 201 to the first read that counts it, nil when no read
    /// does within `probeLimit`; throws when a request fails.
    private func probe(venue: UInt64, body: [UInt8], client: HTTPClient, endpoint: String) async throws -> Duration? {
        guard let before = try await checkinCount(venue: venue, client: client, endpoint: endpoint) else {
            throw CommandFailure("cannot read the venue")
        }
        let response = try await client.execute(
            try IngestLoadtest.gzippedCheckin(body, endpoint: endpoint), timeout: .seconds(30))
        _ = try await response.body.collect(upTo: 1 << 20)
        let created = ContinuousClock.now
        guard response.status.code == 201 else { throw CommandFailure("HTTP \(response.status.code)") }
        while ContinuousClock.now - created < Self.probeLimit {
            let poll = ContinuousClock.now
            if let count = try await checkinCount(venue: venue, client: client, endpoint: endpoint), count > before {
                return ContinuousClock.now - created
            }
            try await Task.sleep(until: poll + Self.probePoll)
        }
        return nil
    }

    /// The venue document's `checkins`: 0 for an unknown venue (the probe's post creates it), nil
    /// when the read fails.
    private func checkinCount(venue: UInt64, client: HTTPClient, endpoint: String) async throws -> Int? {
        let response = try await client.execute(read(venuePath(venue), endpoint: endpoint), timeout: .seconds(30))
        let answer = try await response.body.collect(upTo: 1 << 20)
        if response.status.code == 404 { return 0 }
        guard response.status.code == 200,
            let object = try? JSONSerialization.jsonObject(with: Data(buffer: answer)) as? [String: Any]
        else { return nil }
        return object["checkins"] as? Int
    }

    // MARK: - Setup

    /// Makes sure every venue exists and has cells, then waits for a sample of grids to answer 200.
    private func setUp(client: HTTPClient, endpoint: String) async throws {
        note("setup: checking \(venues) venues \(prefix)0 … \(prefix)\(venues - 1)…")
        let steps = min(10, venues)
        var ready = 0
        var prepared = 0
        for step in 0..<steps {
            let range = (step * venues / steps)..<((step + 1) * venues / steps)
            let counts = try await withThrowingTaskGroup(of: (ready: Int, prepared: Int).self) { group in
                for worker in 0..<min(clients, range.count) {
                    group.addTask {
                        var counts = (ready: 0, prepared: 0)
                        var generator = SyntheticCheckin(
                            seed: 0x5E70_0000 &+ UInt64(range.lowerBound + worker), samples: Self.samples,
                            venues: venues, venuePrefix: prefix)
                        for venue in stride(from: range.lowerBound + worker, to: range.upperBound, by: clients) {
                            if try await prepare(
                                venue: venue, generator: &generator, client: client, endpoint: endpoint)
                            {
                                counts.prepared += 1
                            } else {
                                counts.ready += 1
                            }
                        }
                        return counts
                    }
                }
                return try await group.reduce(into: (ready: 0, prepared: 0)) {
                    $0.ready += $1.ready
                    $0.prepared += $1.prepared
                }
            }
            ready += counts.ready
            prepared += counts.prepared
            note(
                "setup: \(range.upperBound)/\(venues) venues: \(ready) had cells, \(prepared) saved with \(Self.setupCheckins) check-ins each"
            )
        }
        try await awaitGrids(client: client, endpoint: endpoint)
    }

    /// Nothing when the venue's grid answers 200 (false); else PUTs the venue and posts its
    /// check-ins (true).
    private func prepare(venue: Int, generator: inout SyntheticCheckin, client: HTTPClient, endpoint: String)
        async throws -> Bool
    {
        let path = venuePath(UInt64(venue))
        if try await status(of: read(path + "/loudness", endpoint: endpoint), client: client).code == 200 {
            return false
        }
        // A 100 × 100 lattice of about 100 m, around central Sydney.
        let details: [String: Any] = [
            "name": "Read bench venue \(venue)",
            "latitude": -33.8700 + Double(venue % 100) * 0.001,
            "longitude": 151.2000 + Double(venue / 100 % 100) * 0.001,
            "timezone": "UTC",
        ]
        var put = HTTPClientRequest(url: endpoint + path)
        put.method = .PUT
        put.headers.add(name: "Content-Type", value: "application/json")
        put.body = .bytes(ByteBuffer(data: try JSONSerialization.data(withJSONObject: details)))
        let saved = try await status(of: put, client: client)
        guard saved.code == 201 || saved.code == 200 else {
            throw CommandFailure("setup: PUT \(path) answered \(saved.code): \(saved.body)")
        }
        for k in 0..<Self.setupCheckins {
            let device = Self.setupDevices + UInt64(venue * Self.setupCheckins + k)
            let body = generator.next(venue: UInt64(venue), device: device)
            let posted = try await status(of: IngestLoadtest.gzippedCheckin(body, endpoint: endpoint), client: client)
            guard posted.code == 201 || posted.code == 200 else {
                throw CommandFailure("setup: a check-in at \(prefix)\(venue) answered \(posted.code): \(posted.body)")
            }
        }
        return true
    }

    private func status(of request: HTTPClientRequest, client: HTTPClient) async throws -> (code: UInt, body: String) {
        let response = try await client.execute(request, timeout: .seconds(30))
        let answer = try await response.body.collect(upTo: 16 << 20)
        return (response.status.code, String(String(buffer: answer).prefix(300)))
    }

    /// Polls the grids of up to 20 venues spread over all of them until each answers 200, for at most 60 s.
    private func awaitGrids(client: HTTPClient, endpoint: String) async throws {
        let sampled = min(20, venues)
        var waiting = Set((0..<sampled).map { $0 * venues / sampled }).union([venues - 1])
        let total = waiting.count
        let started = ContinuousClock.now
        var reported = started
        note("setup: waiting for the grids of \(total) sampled venues…")
        while !waiting.isEmpty {
            for venue in waiting.sorted() {
                let path = venuePath(UInt64(venue)) + "/loudness"
                if try await status(of: read(path, endpoint: endpoint), client: client).code == 200 {
                    waiting.remove(venue)
                }
            }
            let elapsed = ContinuousClock.now - started
            if waiting.isEmpty { break }
            guard elapsed < .seconds(60) else {
                let missing = waiting.sorted().prefix(5).map { "\(prefix)\($0)" }.joined(separator: ", ")
                throw CommandFailure(
                    "setup: \(waiting.count) of \(total) sampled grids still do not answer 200 after 60 s (\(missing))")
            }
            if ContinuousClock.now - reported >= .seconds(2) {
                reported = ContinuousClock.now
                note("setup: \(total - waiting.count)/\(total) sampled grids answer 200…")
            }
            try await Task.sleep(for: .milliseconds(250))
        }
        let seconds = Double(IngestLoadtest.microseconds(ContinuousClock.now - started)) / 1e6
        note(String(format: "setup: all %d sampled grids answer 200 (%.1f s)", total, seconds))
    }

    // MARK: - The report

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
