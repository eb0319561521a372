import ArgumentParser
import AsyncHTTPClient
import CompressNIO
import Foundation
import Histogram
import NIOCore
import NIOFoundationCompat

struct IngestLoadtest: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ingest",
        abstract:
            "Post realistic check-ins (gzip, like a phone) from concurrent clients and report throughput and latency.",
        discussion: """
            Each client posts check-ins of --samples per-second samples (speech-and-music-like levels, \
            gzip-compressed) one after another over a kept-alive connection, spread over --venues \
            venues. Prints check-ins/s, samples/s and latency p50/p99/p999 (HdrHistogram). A probe posts \
            one more check-in every --probe-interval milliseconds and polls it until the server has judged \
            it, which is when it shows in its venue's grid: its p50/p99 is the freshness under that load. \
            Only loopback or your own test hosts are fit targets. The server rate-limits this tool like \
            any client (one address, few devices): start it with --rate-exempt 127.0.0.1,::1 (as \
            `make run` does) to measure it rather than its limits. --classes with adds the phone's own \
            classes to every check-in (a YAMNet window every 10 s, three labels); --classes both runs a \
            phase without them and then one with them, each for --duration, and prints their ratio. \
            --health first sends GET /health from every client for a quarter of --duration (at least \
            3 s) and prints each phase's check-ins/s as a ratio to it.
            """
    )

    enum ClassesMode: String, ExpressibleByArgument, CaseIterable {
        case none, with, both
    }

    @OptionGroup var target: LoadtestOptions
    var clients: Int { target.clients }
    var duration: Int { target.duration }

    @Option(help: "Samples per check-in.")
    var samples = 300

    @Option(help: "Venues to spread the check-ins over.")
    var venues = 200

    @Option(help: "Milliseconds between freshness probes (0: no probe).")
    var probeInterval = 250

    @Option(help: "Check-ins per second over all clients, paced evenly (0: as fast as the server answers).")
    var rate = 0

    @Option(help: "The phone's own classes in the check-ins: none, with, or both (a phase of each).")
    var classes = ClassesMode.none

    @Flag(help: "First measure GET /health from every client, and print check-ins/s as a ratio to it.")
    var health = false

    func validate() throws {
        guard (10...3600).contains(samples) else { throw ValidationError("--samples must be 10…3600") }
        guard venues > 0 else { throw ValidationError("--venues must be positive") }
        guard rate >= 0 else { throw ValidationError("--rate must be 0 (unpaced) or positive") }
    }

    func run() async throws {
        let endpoint = target.endpoint
        let phases: [Bool] =
            switch classes {
            case .none: [false]
            case .with: [true]
            case .both: [false, true]
            }
        try await target.withHTTPClient(connections: clients, decompression: .enabled(limit: .ratio(50))) { client in
            var healthRate: Double?
            if health {
                let seconds = max(3, duration / 4)
                print("reference: GET /health from \(clients) clients for \(seconds) s…")
                let (results, elapsed) = try await phase(seconds: seconds) { index, deadline in
                    try await runHealth(client: client, endpoint: endpoint, until: deadline)
                }
                healthRate = Double(results.ok) / elapsed
                print(
                    String(
                        format: "health: %d ok, %d failed, %.0f requests/s, p50 %.1f ms", results.ok, results.failed,
                        healthRate!, Double(results.latency.valueAtPercentile(50)) / 1000))
            }
            var rates: [Double] = []
            for withClasses in phases {
                rates.append(
                    try await ingestPhase(
                        client: client, endpoint: endpoint, withClasses: withClasses, health: healthRate))
            }
            if rates.count == 2 {
                print(
                    String(
                        format: "with classes / without: %.3f of the check-ins/s (%.1f %% %@)", rates[1] / rates[0],
                        abs(1 - rates[1] / rates[0]) * 100, rates[1] < rates[0] ? "slower" : "faster"))
            }
        }
    }

    /// Runs `body` on every client until `seconds` have passed; their merged results and the
    /// elapsed seconds.
    func phase(
        seconds: Int, probe: (@Sendable (ContinuousClock.Instant) async throws -> ClientResult)? = nil,
        _ body: @escaping @Sendable (Int, ContinuousClock.Instant) async throws -> ClientResult
    ) async throws -> (ClientResult, Double) {
        let deadline = ContinuousClock.now + .seconds(seconds)
        let started = ContinuousClock.now
        let results = try await withThrowingTaskGroup(of: ClientResult.self) { group in
            for index in 0..<clients {
                group.addTask { try await body(index, deadline) }
            }
            if let probe { group.addTask { try await probe(deadline) } }
            var total = ClientResult()
            for try await result in group { total.merge(result) }
            return total
        }
        let elapsed = ContinuousClock.now - started
        return (results, Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
    }

    /// GET /health in a loop, tallied like a check-in.
    func runHealth(client: HTTPClient, endpoint: String, until deadline: ContinuousClock.Instant) async throws
        -> ClientResult
    {
        var result = ClientResult()
        while ContinuousClock.now < deadline {
            let start = ContinuousClock.now
            do {
                let response = try await client.execute(
                    HTTPClientRequest(url: endpoint + "/health"), timeout: .seconds(30))
                _ = try await response.body.collect(upTo: 1 << 16)
                _ = result.latency.record(Self.microseconds(ContinuousClock.now - start))
                if response.status.code == 200 { result.ok += 1 } else { result.failed += 1 }
            } catch {
                result.failed += 1
                if result.firstError == nil { result.firstError = "\(error)" }
            }
        }
        return result
    }

    /// One phase of check-ins (with or without classes); prints its figures and returns check-ins/s.
    func ingestPhase(client: HTTPClient, endpoint: String, withClasses: Bool, health: Double?) async throws -> Double {
        let pace = rate > 0 ? " at \(rate)/s" : ""
        let kind = withClasses ? " with classes" : ""
        print(
            "posting \(samples)-sample check-ins\(kind) from \(clients) clients\(pace) for \(duration) s to \(endpoint)…"
        )
        let probing = probeInterval > 0
        var probe: (@Sendable (ContinuousClock.Instant) async throws -> ClientResult)?
        if probing {
            probe = { deadline in try await runProbe(client: client, endpoint: endpoint, until: deadline) }
        }
        let (results, seconds) = try await phase(seconds: duration, probe: probe) { index, deadline in
            try await runClient(
                index: index, client: client, endpoint: endpoint, until: deadline, withClasses: withClasses)
        }

        let rate = Double(results.ok) / seconds
        func ms(_ p: Double) -> String {
            String(format: "%.1f ms", Double(results.latency.valueAtPercentile(p)) / 1000)
        }
        print(String(format: "check-ins: %d ok, %d failed in %.1f s", results.ok, results.failed, seconds))
        print(String(format: "throughput: %.0f check-ins/s, %.0f samples/s", rate, rate * Double(samples)))
        print("latency: p50 \(ms(50)), p99 \(ms(99)), p999 \(ms(99.9)), max \(ms(100))")
        if probing {
            let f = results.freshness
            func fms(_ p: Double) -> String { String(format: "%.0f ms", Double(f.valueAtPercentile(p)) / 1000) }
            print("freshness (201 → judged, \(f.totalCount) probes): p50 \(fms(50)), p99 \(fms(99)), max \(fms(100))")
        }
        if let health { print(String(format: "ratio to /health: %.3f", rate / health)) }
        if let error = results.firstError { print("first failure: \(error)") }
        return rate
    }

    /// `duration` in whole microseconds, at least 1, for the histograms.
    static func microseconds(_ duration: Duration) -> UInt64 {
        UInt64(max(1, duration.components.seconds * 1_000_000 + duration.components.attoseconds / 1_000_000_000_000))
    }

    /// `POST /api/v2/checkins` of `body`, gzip-compressed, as a phone sends it.
    static func gzippedCheckin(_ body: [UInt8], endpoint: String) throws -> HTTPClientRequest {
        var body = ByteBuffer(bytes: body)
        let compressed = try body.compress(with: .gzip(configuration: .init(compressionLevel: .fastestCompression)))
        var request = HTTPClientRequest(url: endpoint + "/api/v2/checkins")
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/json")
        request.headers.add(name: "Content-Encoding", value: "gzip")
        request.headers.add(name: "Accept-Encoding", value: "gzip")
        request.body = .bytes(compressed)
        return request
    }

    struct ClientResult: Sendable {
        var ok = 0
        var failed = 0
        var firstError: String?
        var latency = Histogram<UInt64>(highestTrackableValue: 60_000_000, numberOfSignificantValueDigits: .three)
        /// Microseconds from a probe's 201 to the server's judgement of it.
        var freshness = Histogram<UInt64>(highestTrackableValue: 600_000_000, numberOfSignificantValueDigits: .three)

        mutating func merge(_ other: ClientResult) {
            ok += other.ok
            failed += other.failed
            firstError = firstError ?? other.firstError
            latency.add(other.latency)
            freshness.add(other.freshness)
        }
    }

    func runClient(
        index: Int, client: HTTPClient, endpoint: String, until deadline: ContinuousClock.Instant,
        withClasses: Bool = false
    ) async throws -> ClientResult {
        var result = ClientResult()
        var generator = SyntheticCheckin(
            seed: UInt64(index + 1), samples: samples, venues: venues, withClasses: withClasses)
        // Paced: this client's share of --rate, each post at its own time (offset per client).
        let interval: Duration? = rate > 0 ? .seconds(Double(clients) / Double(rate)) : nil
        var next = ContinuousClock.now + (interval ?? .zero) * (Double(index) / Double(clients))
        while ContinuousClock.now < deadline {
            if let interval {
                try await Task.sleep(until: next, clock: .continuous)
                next += interval
            }
            let request = try Self.gzippedCheckin(generator.next(), endpoint: endpoint)
            let start = ContinuousClock.now
            do {
                let response = try await client.execute(request, timeout: .seconds(30))
                let answer = try await response.body.collect(upTo: 1 << 20)
                let elapsed = ContinuousClock.now - start
                _ = result.latency.record(Self.microseconds(elapsed))
                if response.status.code == 201 || response.status.code == 200 {
                    result.ok += 1
                } else {
                    result.failed += 1
                    if result.firstError == nil {
                        result.firstError = "HTTP \(response.status.code): \(String(buffer: answer).prefix(300))"
                    }
                }
            } catch {
                result.failed += 1
                if result.firstError == nil { result.firstError = "\(error)" }
            }
        }
        return result
    }

    /// Posts a check-in every `probeInterval` ms and polls it until it is judged.
    func runProbe(client: HTTPClient, endpoint: String, until deadline: ContinuousClock.Instant) async throws
        -> ClientResult
    {
        var result = ClientResult()
        var generator = SyntheticCheckin(seed: 0xF4E5, samples: samples, venues: venues)
        while ContinuousClock.now < deadline {
            let next = ContinuousClock.now + .milliseconds(probeInterval)
            let body = generator.next()
            var request = HTTPClientRequest(url: endpoint + "/api/v2/checkins")
            request.method = .POST
            request.headers.add(name: "Content-Type", value: "application/json")
            request.body = .bytes(body)
            let response = try await client.execute(request, timeout: .seconds(30))
            let answer = try await response.body.collect(upTo: 1 << 20)
            let created = ContinuousClock.now
            guard response.status.code == 201,
                let object = try? JSONSerialization.jsonObject(with: Data(buffer: answer)) as? [String: Any],
                let id = object["id"] as? String
            else { continue }
            while ContinuousClock.now - created < .seconds(60) {
                let poll = try await client.execute(
                    HTTPClientRequest(url: endpoint + "/api/v2/checkins/" + id), timeout: .seconds(30))
                let read = try await poll.body.collect(upTo: 1 << 20)
                let status = (try? JSONSerialization.jsonObject(with: Data(buffer: read)) as? [String: Any])?["status"]
                if let status = status as? String, status != "pending" {
                    let elapsed = ContinuousClock.now - created
                    _ = result.freshness.record(Self.microseconds(elapsed))
                    break
                }
                try await Task.sleep(for: .milliseconds(10))
            }
            try await Task.sleep(until: next)
        }
        return result
    }
}
