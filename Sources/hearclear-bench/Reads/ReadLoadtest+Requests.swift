import ArgumentParser
import AsyncHTTPClient
import Foundation
import HearClearCLI
import Histogram
import LoudnessCore
import NIOCore
import NIOFoundationCompat

/// The reads `--mix` weighs and the requests they make.
extension ReadLoadtest {
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
    func read(_ path: String, endpoint: String) -> HTTPClientRequest {
        var request = HTTPClientRequest(url: endpoint + path)
        if gzip { request.headers.add(name: "Accept-Encoding", value: "gzip") }
        return request
    }

    func venuePath(_ venue: UInt64) -> String { "/api/v2/venues/\(prefix)\(venue)" }
}
