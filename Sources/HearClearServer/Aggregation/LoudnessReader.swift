import Foundation
import HearClearStore
import Logging
import LoudnessCore

/// Turns stored cells into what people read: calibrated dB (model-corrected dBFS + the reference
/// offset) labelled with the bands in the database *now*, so a band change shows in the next
/// response. v1 and v2 both label through ``label(ofCalibratedDB:bands:)``, so they agree.
struct LoudnessReader: Sendable {
    let venues: VenueRepository
    let loudness: LoudnessRepository
    let bands: BandRepository
    let referenceOffsetDB: Double
    let logger: Logger

    /// One cell as reported: calibrated levels rounded to 0.1 dB; the label is of the rounded level.
    struct Cell: Sendable, Equatable {
        var localHour: LocalHour
        var levelDB: Double
        var rangeDB: ClosedRange<Double>
        var label: String
        var checkins: Int
        var devices: Int
        var confidence: String
    }

    /// The bands in force; the defaults if the table holds an invalid set (logged).
    func currentBands() async throws -> Bands {
        let stored = try await bands.current()
        do {
            return try Self.bands(stored)
        } catch {
            logger.error("bands in the database are invalid; using the defaults", metadata: ["error": "\(error)"])
            return .standard
        }
    }

    /// Stored bands as a validated set.
    static func bands(_ stored: [StoredBand]) throws -> Bands {
        try Bands(stored.map { Band(label: $0.label, belowDB: $0.belowDB) })
    }

    /// The venue's cells, Monday 0:00 first.
    func cells(venueID: Int64, bands: Bands) async throws -> [Cell] {
        try await loudness.cells(venueID: venueID).map { cell in
            let level = Self.rounded(cell.levelDBFS + referenceOffsetDB)
            return Cell(
                localHour: LocalHour(weekday: cell.weekday, hour: cell.hour), levelDB: level,
                rangeDB: Self.rounded(
                    cell.rangeLowDBFS + referenceOffsetDB)...Self.rounded(
                        cell.rangeHighDBFS + referenceOffsetDB),
                label: Self.label(ofCalibratedDB: level, bands: bands), checkins: cell.checkins, devices: cell.devices,
                confidence: cell.confidence)
        }
    }

    /// The venue's overall level: the median of its cells' calibrated levels (each weekday-hour
    /// with data counts once, so a venue is not judged by its busiest hour alone), with its label.
    /// `nil` without cells.
    static func overall(_ cells: [Cell], bands: Bands) -> (levelDB: Double, label: String)? {
        guard let level = overallLevel(cells.map(\.levelDB)) else { return nil }
        return (level, label(ofCalibratedDB: level, bands: bands))
    }

    /// The overall level alone (no bands to read), as ``overall(_:bands:)`` computes it.
    func overallLevel(venueID: Int64) async throws -> Double? {
        Self.overallLevel(
            try await loudness.cells(venueID: venueID).map { Self.rounded($0.levelDBFS + referenceOffsetDB) })
    }

    /// The rounded median of cells' reported levels.
    private static func overallLevel(_ levels: [Double]) -> Double? {
        RobustStatistics.median(levels).map(rounded)
    }

    /// Calibrated dB of a check-in's raw dBFS level and the device model's offset.
    func calibratedDB(levelDBFS: Double, modelOffsetDB: Double) -> Double {
        Self.rounded(
            CalibrationOffsets(deviceModelOffsetDB: modelOffsetDB, referenceOffsetDB: referenceOffsetDB)
                .calibratedDB(fromDBFS: levelDBFS))
    }

    /// The one labelling rule of v1 and v2.
    static func label(ofCalibratedDB levelDB: Double, bands: Bands) -> String {
        bands.label(for: levelDB)
    }

    /// Rounded to 0.1 dB, as reported.
    static func rounded(_ value: Double) -> Double {
        (value * 10).rounded() / 10
    }
}
