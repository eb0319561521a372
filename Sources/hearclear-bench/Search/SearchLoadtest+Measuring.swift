import ArgumentParser
import AsyncHTTPClient
import Foundation
import HearClearCLI
import HearClearEngine
import Histogram
import LoudnessCore
import NIOCore
import NIOFoundationCompat

/// Measuring: the clients' loops and their tally.
extension SearchLoadtest {
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
    func measure(
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
    func search(_ request: HTTPClientRequest, client: HTTPClient, tally: inout Tally) async {
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
    func post(_ body: [UInt8], client: HTTPClient, tally: inout Tally) async {
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
}
