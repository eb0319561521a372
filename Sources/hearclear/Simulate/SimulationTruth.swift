import Foundation

/// What `hearclear simulate` knows and the server does not: written next to the run, read by
/// `--evaluate`.
struct SimulationTruth: Codable {
    struct Cell: Codable {
        var weekday: Int
        var hour: Int
        var trueDB: Double
    }

    struct VenueTruth: Codable {
        var venue: SimulatedVenue
        var cells: [Cell]
    }

    struct Checkin: Codable {
        var id: String
        var venue: String
        var device: String
        var weekday: Int
        var hour: Int
        /// `nil` for a clean check-in.
        var contamination: Contamination?
        /// Energetic mean of all its seconds, dBFS.
        var leqDBFS: Double
        /// Mean linear amplitude of its seconds.
        var meanAmplitude: Double
    }

    var seed: UInt64
    var contamination: Double
    var referenceOffsetDB: Double
    var venues: [VenueTruth]
    var devices: [SimulatedDevice]
    var checkins: [Checkin]

    static func read(_ path: String) throws -> SimulationTruth {
        try JSONDecoder().decode(SimulationTruth.self, from: Data(contentsOf: URL(fileURLWithPath: path)))
    }

    func write(_ path: String) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        try encoder.encode(self).write(to: URL(fileURLWithPath: path))
    }
}
