import ArgumentParser
import AsyncHTTPClient
import Foundation
import HearClearCLI
import Histogram
import LoudnessCore
import NIOCore
import NIOFoundationCompat

/// The clients: each sends its requests in a loop until the deadline and tallies what came back.
extension ReadLoadtest {
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
}
