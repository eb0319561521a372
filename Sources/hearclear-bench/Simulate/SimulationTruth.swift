import Foundation

/// What `hearclear-bench simulate` knows and the server does not: written next to the run, read by
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
        /// When its first second was measured; what a server's own clock would bucket it by.
        /// `nil` in truth files written before it was recorded.
        var start: Date?
    }

    var seed: UInt64
    var contamination: Double
    /// `--occasion-sd` of the run; `nil` in truth files written before it existed (no variation).
    var occasionSD: Double?
    var referenceOffsetDB: Double
    var venues: [VenueTruth]
    /// The phone models and their true biases; `nil` in truth files written before they were drawn.
    var models: [SimulatedModel]?
    var devices: [SimulatedDevice]
    var checkins: [Checkin]
    /// Cells (`venue|weekday|hour`) whose check-ins were not sent (`--hide-cells`), to score the
    /// server's estimates for cells without data; `nil` in truth files written before.
    var hiddenCells: [String]?

    static func read(_ path: String) throws -> SimulationTruth {
        try JSONDecoder().decode(SimulationTruth.self, from: Data(contentsOf: URL(fileURLWithPath: path)))
    }

    func write(_ path: String) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        try encoder.encode(self).write(to: URL(fileURLWithPath: path))
    }
}
