import AsyncHTTPClient
import Foundation
import HearClearCLI
import Histogram
import NIOCore
import NIOFoundationCompat

/// The visibility probe of `loadtest search --ingest-share`: how long a new check-in takes to show
/// in search, as `loadtest read`'s staleness probe measures it for the venue document, and then in
/// its venue's grid (once the worker has judged it).
extension SearchLoadtest {
    /// What the visibility probe saw.
    struct VisibilityResult: Sendable {
        /// Microseconds from a probe's POST answer to the first search that counts its check-in.
        var visible = Histogram<UInt64>(highestTrackableValue: 600_000_000, numberOfSignificantValueDigits: .three)
        /// Microseconds from a probe's POST answer to the first read of the venue's grid that
        /// differs from the one before the POST (its `ETag`): the worker has judged the check-in
        /// and written the venue's cells.
        var inGrid = Histogram<UInt64>(highestTrackableValue: 600_000_000, numberOfSignificantValueDigits: .three)
        /// Probes seen in search whose grid did not change within `probeLimit`.
        var unseenInGrid = 0
        /// Probes sent.
        var probes = 0
        /// Probes whose check-in no search counted within `probeLimit`.
        var unseen = 0
        /// Probes whose post or search failed.
        var failed = 0
        /// The first failure, with its venue.
        var firstError: String?
    }

    /// Venues with data the probe posts to in turn; the clients' check-ins go elsewhere.
    static let probeVenueCount = 8
    /// A probe starts this often (or as soon as the one before ends, when it took longer).
    static let probeInterval: Duration = .milliseconds(250)
    /// How often a probe searches until its check-in shows.
    static let probePoll: Duration = .milliseconds(20)
    /// A probe not seen this long after its POST's answer counts as a failure.
    static let probeLimit: Duration = .seconds(10)
    /// The radius, metres, of the probe's searches around its venue, and their page size.
    static let probeRadius = 50
    static let probeResults = 50

    /// Every `probeInterval` until `deadline`: posts a check-in from a new device to the next of
    /// `venues`, then searches near the venue every `probePoll` until its `checkins` is higher
    /// than before the post.
    func runVisibilityProbe(
        venues probeVenues: [Int], client: HTTPClient, endpoint: String,
        until deadline: ContinuousClock.Instant
    ) async throws -> VisibilityResult {
        var result = VisibilityResult()
        var generator = SyntheticCheckin(
            seed: 0x5EA2_B000, samples: ReadLoadtest.samples, venues: venues, venuePrefix: prefix)
        // A device of its own for every probe, in this run and the next: milliseconds since 1970 × 1000.
        let firstDevice = UInt64(Date().timeIntervalSince1970 * 1000) * 1000
        // The least count each venue is known to have since the probe's own posts: a search that
        // shows less is behind, and must not pass for the next probe's check-in.
        var known: [Int: Int] = [:]
        while ContinuousClock.now < deadline {
            let next = ContinuousClock.now + Self.probeInterval
            let venue = probeVenues[result.probes % probeVenues.count]
            result.probes += 1
            let body = generator.next(venue: UInt64(venue), device: firstDevice + UInt64(result.probes))
            do {
                let before = max(
                    try await searchedCheckins(venue: venue, client: client, endpoint: endpoint), known[venue] ?? 0)
                let gridBefore = try await gridTag(venue: venue, client: client, endpoint: endpoint)
                let posted = try await post(body, client: client, endpoint: endpoint)
                known[venue] = before + 1
                if let elapsed = try await awaitCount(
                    above: before, venue: venue, since: posted, client: client, endpoint: endpoint)
                {
                    _ = result.visible.record(IngestLoadtest.microseconds(elapsed))
                    if let elapsed = try await awaitGrid(
                        other: gridBefore, venue: venue, since: posted, client: client, endpoint: endpoint)
                    {
                        _ = result.inGrid.record(IngestLoadtest.microseconds(elapsed))
                    } else {
                        result.unseenInGrid += 1
                    }
                } else {
                    result.unseen += 1
                }
            } catch is CancellationError {
                throw CancellationError()
            } catch {
                result.failed += 1
                result.firstError = result.firstError ?? "\(prefix)\(venue): \(error)"
            }
            if ContinuousClock.now < next { try await Task.sleep(until: next) }
        }
        return result
    }

    /// Posts the probe's check-in; when its answer (201) came.
    private func post(_ body: [UInt8], client: HTTPClient, endpoint: String) async throws -> ContinuousClock.Instant {
        let response = try await client.execute(
            try IngestLoadtest.gzippedCheckin(body, endpoint: endpoint), timeout: .seconds(30))
        let answer = try await response.body.collect(upTo: 1 << 20)
        let answered = ContinuousClock.now
        guard response.status.code == 201 else {
            throw CommandFailure(
                "POST /api/v2/checkins answered \(response.status.code): \(String(buffer: answer).prefix(300))")
        }
        return answered
    }

    /// The time from `posted` to the answer of the first search that shows the venue with more
    /// than `before` check-ins; nil when none does within `probeLimit`.
    private func awaitCount(
        above before: Int, venue: Int, since posted: ContinuousClock.Instant, client: HTTPClient, endpoint: String
    ) async throws -> Duration? {
        while ContinuousClock.now - posted < Self.probeLimit {
            let poll = ContinuousClock.now
            if try await searchedCheckins(venue: venue, client: client, endpoint: endpoint) > before {
                return ContinuousClock.now - posted
            }
            try await Task.sleep(until: poll + Self.probePoll)
        }
        return nil
    }

    /// The time from `posted` to the answer of the first read of the venue's grid whose `ETag` is
    /// not `other`; nil when none is within `probeLimit`.
    private func awaitGrid(
        other: String, venue: Int, since posted: ContinuousClock.Instant, client: HTTPClient, endpoint: String
    ) async throws -> Duration? {
        while ContinuousClock.now - posted < Self.probeLimit {
            let poll = ContinuousClock.now
            if try await gridTag(venue: venue, client: client, endpoint: endpoint) != other {
                return ContinuousClock.now - posted
            }
            try await Task.sleep(until: poll + Self.probePoll)
        }
        return nil
    }

    /// The `ETag` of the venue's grid (`GET /api/v2/venues/{id}/loudness`, not gzip'd); throws
    /// when the read fails.
    private func gridTag(venue: Int, client: HTTPClient, endpoint: String) async throws -> String {
        let path = "/api/v2/venues/\(prefix)\(venue)/loudness"
        let response = try await client.execute(HTTPClientRequest(url: endpoint + path), timeout: .seconds(30))
        let answer = try await response.body.collect(upTo: 16 << 20)
        guard response.status.code == 200, let tag = response.headers.first(name: "ETag") else {
            throw CommandFailure(
                "GET \(path) answered \(response.status.code) without an ETag: \(String(buffer: answer).prefix(300))")
        }
        return tag
    }

    /// The venue's `checkins` as a search near its place shows it (radius `probeRadius`, no `at`
    /// nor label); throws when the search fails or the venue is not among its results.
    private func searchedCheckins(venue: Int, client: HTTPClient, endpoint: String) async throws -> Int {
        let place = place(venue)
        var request = HTTPClientRequest(
            url: endpoint
                + String(
                    format: "/api/v2/venues?near=%.6f,%.6f&radius=%d&limit=%d", place.latitude, place.longitude,
                    Self.probeRadius, Self.probeResults))
        request.headers.add(name: "Accept-Encoding", value: "gzip")
        let response = try await client.execute(request, timeout: .seconds(30))
        let answer = try await response.body.collect(upTo: 16 << 20)
        guard response.status.code == 200 else {
            throw CommandFailure("search answered \(response.status.code): \(String(buffer: answer).prefix(300))")
        }
        let id = "\(prefix)\(venue)"
        let results = Self.object(answer)?["results"] as? [[String: Any]] ?? []
        for result in results {
            if let found = result["venue"] as? [String: Any], found["id"] as? String == id {
                guard let checkins = found["checkins"] as? Int else {
                    throw CommandFailure("a search result of \(id) has no checkins")
                }
                return checkins
            }
        }
        throw CommandFailure(
            "\(id) is not among the \(results.count) results of a search within \(Self.probeRadius) m of its place")
    }
}
