import Foundation

/// What `hearclear-bench simulate` knows and the server does not: written next to the run, read by
/// `--evaluate`.
struct SimulationTruth: Codable {
    struct Cell: Codable {
        var weekday: Int
        var hour: Int
        /// The cell's true level *now*: after a change of its venue (`--change-share`), the new one.
        var trueDB: Double
        /// The level before the venue's change, for a cell the change moved; `nil` otherwise.
        var beforeChangeDB: Double?
    }

    /// A venue whose level changed lastingly (`--change-share`).
    struct VenueChange: Codable, Equatable {
        /// From when (check-ins starting at or after it read the change).
        var at: Date
        /// By how much, dB.
        var db: Double
        /// The venue-local hours of the day it applies to (all 24 when not limited).
        var hours: [Int]

        func applies(hour: Int) -> Bool { hours.contains(hour) }
        func applies(hour: Int, at start: Date) -> Bool { start >= at && hours.contains(hour) }
    }

    struct VenueTruth: Codable {
        var venue: SimulatedVenue
        var cells: [Cell]
        /// `nil`: the venue did not change.
        var change: VenueChange?
    }

    /// What a lying check-in is.
    enum Fake: String, Codable, CaseIterable, Sendable {
        /// From a fresh device id made for it (`--fake-venues`).
        case freshDevice = "fresh_device"
        /// From a slow-burn device in its attack (`--slow-burn-venues`); its honest check-ins before
        /// are not fakes (their levels are true), but their device is one (`SimulatedDevice.role`).
        case slowBurn = "slow_burn"
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
        /// `nil`: honest (its level is the room's through its phone, junk or not).
        var fake: Fake?
        /// Whether it started at or after its venue's change (`nil`: the venue did not change, or
        /// the truth file is older).
        var afterChange: Bool?
        /// How many dB its phone read above the room when it was made: model bias + the phone's
        /// own + a model's step + the phone's step + ageing. `nil` in older truth files (then the
        /// device's `biasDB`).
        var phoneOffsetDB: Double?
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
    /// The trust scenarios of the run (venues that change, phones that drift, fakes, newcomers);
    /// `nil` in truth files written before them.
    var scenarios: SimulationScenarios?
    /// When the city was drawn (its "now"); `nil` in older truth files.
    var generatedAt: Date?

    /// Venues that changed, by id.
    var changes: [String: VenueChange] {
        Dictionary(uniqueKeysWithValues: venues.compactMap { venue in venue.change.map { (venue.venue.id, $0) } })
    }

    static func read(_ path: String) throws -> SimulationTruth {
        try JSONDecoder().decode(SimulationTruth.self, from: Data(contentsOf: URL(fileURLWithPath: path)))
    }

    func write(_ path: String) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        try encoder.encode(self).write(to: URL(fileURLWithPath: path))
    }
}
