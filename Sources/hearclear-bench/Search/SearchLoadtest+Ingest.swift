import ArgumentParser
import AsyncHTTPClient
import Foundation
import HearClearCLI
import HearClearEngine
import Histogram
import LoudnessCore
import NIOCore
import NIOFoundationCompat

/// `--ingest-share`: the check-ins mixed in, and the visibility probe's venues.
extension SearchLoadtest {
    /// What `--ingest-share` mixes into the main server's searches.
    struct IngestPlan: Sendable {
        /// The share of each client's requests that post a check-in.
        var share: Double
        /// The venues the clients post to: those with data, less the probe's.
        var venues: [Int]
        /// The venues the visibility probe posts to, in turn.
        var probeVenues: [Int]
    }

    /// Nil without `--ingest-share`; else the venues with data, split between the clients and the
    /// probe.
    func ingestPlan() throws -> IngestPlan? {
        guard ingestShare > 0 else { return nil }
        let withData = (0..<venues).filter { place($0).hasCells }
        guard !withData.isEmpty else {
            throw CommandFailure("--ingest-share: none of the \(venues) venues has data at --with-cells \(withCells)")
        }
        let probeVenues = Array(withData.prefix(Self.probeVenueCount))
        // The probe's venues get no other check-ins, so that a count one higher is the probe's own
        // (unless the city has no other venue with data).
        let others = Array(withData.dropFirst(probeVenues.count))
        return IngestPlan(share: ingestShare, venues: others.isEmpty ? withData : others, probeVenues: probeVenues)
    }

    /// Fails early when a probe venue is missing or elsewhere: the check-ins would create it at the
    /// centre, where no search near its place finds it.
    func checkProbeVenues(_ probeVenues: [Int], client: HTTPClient, endpoint: String) async throws {
        for venue in probeVenues {
            let path = "/api/v2/venues/\(prefix)\(venue)"
            let response = try await client.execute(HTTPClientRequest(url: endpoint + path), timeout: .seconds(30))
            let body = try await response.body.collect(upTo: 16 << 20)
            guard response.status.code == 200, let document = Self.object(body), Self.isAt(place(venue), document)
            else {
                throw CommandFailure(
                    "--ingest-share: GET \(path) answered \(response.status.code), not the venue in its place; "
                        + "create the city first (--setup)")
            }
        }
    }

    /// The visibility probe under `--ingest-share`, nil without it.
    func visibilityProbe(
        _ plan: IngestPlan?, client: HTTPClient, endpoint: String, until deadline: ContinuousClock.Instant
    ) async throws -> VisibilityResult? {
        guard let plan else { return nil }
        return try await runVisibilityProbe(
            venues: plan.probeVenues, client: client, endpoint: endpoint, until: deadline)
    }
}
