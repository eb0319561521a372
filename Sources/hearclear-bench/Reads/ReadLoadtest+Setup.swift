import ArgumentParser
import AsyncHTTPClient
import Foundation
import HearClearCLI
import Histogram
import LoudnessCore
import NIOCore
import NIOFoundationCompat

/// `--setup`: the venues and their check-ins, and the wait for their grids.
extension ReadLoadtest {
    /// Makes sure every venue exists and has cells, then waits for a sample of grids to answer 200.
    func setUp(client: HTTPClient, endpoint: String) async throws {
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
    func prepare(venue: Int, generator: inout SyntheticCheckin, client: HTTPClient, endpoint: String)
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

    func status(of request: HTTPClientRequest, client: HTTPClient) async throws -> (code: UInt, body: String) {
        let response = try await client.execute(request, timeout: .seconds(30))
        let answer = try await response.body.collect(upTo: 16 << 20)
        return (response.status.code, String(String(buffer: answer).prefix(300)))
    }

    /// Polls the grids of up to 20 venues spread over all of them until each answers 200, for at most 60 s.
    func awaitGrids(client: HTTPClient, endpoint: String) async throws {
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
}
