import ArgumentParser
import AsyncHTTPClient
import Foundation
import HearClearCLI
import Histogram
import LoudnessCore
import NIOCore
import NIOFoundationCompat

/// The staleness probe: how long a check-in takes to show in its venue's reads while `--ingest-share` writes.
extension ReadLoadtest {
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
    func probe(venue: UInt64, body: [UInt8], client: HTTPClient, endpoint: String) async throws -> Duration? {
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
    func checkinCount(venue: UInt64, client: HTTPClient, endpoint: String) async throws -> Int? {
        let response = try await client.execute(read(venuePath(venue), endpoint: endpoint), timeout: .seconds(30))
        let answer = try await response.body.collect(upTo: 1 << 20)
        if response.status.code == 404 { return 0 }
        guard response.status.code == 200,
            let object = try? JSONSerialization.jsonObject(with: Data(buffer: answer)) as? [String: Any]
        else { return nil }
        return object["checkins"] as? Int
    }
}
