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
        /// Check-ins posted under `--ingest-share`, grids read under `--grid-share` and venue pages
        /// under `--page-share`, each tallied apart from the searches.
        var ingest = Side()
        var grid = Side()
        var page = Side()
        var seconds = 0.0

        /// Requests of one kind mixed into the searches: how many, how many failed, and the
        /// microseconds of every one answered.
        struct Side: Sendable {
            var requests = 0
            var errors = 0
            var histogram = Histogram<UInt64>(highestTrackableValue: 60_000_000, numberOfSignificantValueDigits: .three)

            mutating func merge(_ other: Side) {
                requests += other.requests
                errors += other.errors
                histogram.add(other.histogram)
            }
        }

        mutating func merge(_ other: Tally) {
            histogram.add(other.histogram)
            requests += other.requests
            errors += other.errors
            firstError = firstError ?? other.firstError
            answered += other.answered
            read += other.read
            results += other.results
            ingest.merge(other.ingest)
            grid.merge(other.grid)
            page.merge(other.page)
        }

        /// Counts a failed search, or with `side` a failed request of that side (its message then
        /// starts with the side's name).
        mutating func fail(_ message: String, side: WritableKeyPath<Tally, Side>? = nil, named name: String = "") {
            if let side { self[keyPath: side].errors += 1 } else { errors += 1 }
            firstError = firstError ?? (side == nil ? "" : name + ": ") + message
        }
    }

    /// The requests mixed into the searches (`--ingest-share`, `--grid-share`, `--page-share`).
    struct Mix: Sendable {
        var ingest: IngestPlan?
        var gridShare = 0.0
        var pageShare = 0.0
        /// The venues with data whose grids and pages are read.
        var readVenues: [Int] = []
    }

    /// Runs the clients until `deadline`, each sending `request`'s requests one after another
    /// (with `mix`, shares of them check-ins, grid or page reads instead, drawn apart so that the
    /// searches are the same).
    func measure(
        client: HTTPClient, until deadline: ContinuousClock.Instant, mix: Mix = Mix(),
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
                    let ingestShare = mix.ingest?.share ?? 0
                    while ContinuousClock.now < deadline {
                        let draw = mixing.unit()
                        if let ingest = mix.ingest, draw < ingestShare {
                            let venue = ingest.venues[Int(mixing.next() % UInt64(ingest.venues.count))]
                            let body = generator.next(
                                venue: UInt64(venue), device: UInt64.random(in: Self.ingestDevices))
                            await post(body, client: client, tally: &tally)
                        } else if draw < ingestShare + mix.gridShare + mix.pageShare {
                            let venue = mix.readVenues[Int(mixing.next() % UInt64(mix.readVenues.count))]
                            let grid = draw < ingestShare + mix.gridShare
                            let path = grid ? "/api/v2/venues/\(prefix)\(venue)/loudness" : "/venues/\(prefix)\(venue)"
                            await read(path, into: grid ? \.grid : \.page, client: client, tally: &tally)
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
        tally.ingest.requests += 1
        let start = ContinuousClock.now
        do {
            let response = try await client.execute(
                try IngestLoadtest.gzippedCheckin(body, endpoint: target.endpoint), timeout: .seconds(30))
            let answer = try await response.body.collect(upTo: 1 << 20)
            _ = tally.ingest.histogram.record(IngestLoadtest.microseconds(ContinuousClock.now - start))
            let code = response.status.code
            if code != 201 && code != 200 {
                tally.fail("HTTP \(code): \(String(buffer: answer).prefix(300))", side: \.ingest, named: "ingest")
            }
        } catch {
            tally.fail("\(error)", side: \.ingest, named: "ingest")
        }
    }

    /// Reads a venue's grid or page from the main server (gzip accepted, as a browser or the app
    /// asks) and tallies it on `side`; an error unless it answers 200.
    func read(_ path: String, into side: WritableKeyPath<Tally, Tally.Side>, client: HTTPClient, tally: inout Tally)
        async
    {
        tally[keyPath: side].requests += 1
        let start = ContinuousClock.now
        var request = HTTPClientRequest(url: target.endpoint + path)
        request.headers.add(name: "Accept-Encoding", value: "gzip")
        do {
            let response = try await client.execute(request, timeout: .seconds(30))
            let body = try await response.body.collect(upTo: 16 << 20)
            _ = tally[keyPath: side].histogram.record(IngestLoadtest.microseconds(ContinuousClock.now - start))
            if response.status.code != 200 {
                tally.fail("HTTP \(response.status.code): \(String(buffer: body).prefix(300))", side: side, named: path)
            }
        } catch {
            tally.fail("\(error)", side: side, named: path)
        }
    }
}
