import HearClearModel
import LoudnessCore

/// One venue as the search index holds it: its document, its count, where it is, and — with
/// cells — its clock and levels, packed (``HourMap``).
struct IndexedVenue: Sendable {
    var venue: Venue
    var checkins: Int
    /// The venue's category's number in the index (``VenueTable/categories``); −1 for none.
    var category: Int32
    var point: SphereDistance.Point
    var levels: Levels?

    /// The venue's `venue_levels` row and cells: a reference, so that a venue without cells pays
    /// one word for it.
    final class Levels: Sendable {
        /// The clock's number in the index (``VenueTable/clocks``); −1 for none.
        let clock: Int32
        /// NaN for none.
        let overallDBFS: Float
        /// Every hour's level (measured or estimated): what search filters and sorts by.
        let levels: HourMap<Float>
        /// The measured hours' levels: what similarity compares.
        let measured: HourMap<Float>
        /// The cells as reported.
        let cells: HourMap<PackedCell>

        init(
            clock: Int32, overallDBFS: Float, levels: HourMap<Float>, measured: HourMap<Float>,
            cells: HourMap<PackedCell>
        ) {
            self.clock = clock
            self.overallDBFS = overallDBFS
            self.levels = levels
            self.measured = measured
            self.cells = cells
        }
    }

    /// A cell as search reports it, in 24 bytes.
    struct PackedCell: Sendable {
        var levelDBFS: Float
        var rangeLowDBFS: Float
        var rangeHighDBFS: Float
        var checkins: Int32
        var devices: Int32
        /// ``confidences`` index.
        var confidence: UInt8
        /// 0 measured, 1 + ``bases`` index for an estimate.
        var basis: UInt8

        static let confidences = ["low", "medium", "high"]
        static let bases: [PatternEstimate.Basis] = [.venuePattern, .categoryNearby, .afterChange]
    }
}

extension IndexedVenue.PackedCell {
    /// A stored cell, packed. `loudness_cells` allows only the confidences and bases named here
    /// (its CHECK constraints).
    init(_ cell: SearchIndexRow.Cell) {
        levelDBFS = cell.levelDBFS
        rangeLowDBFS = cell.rangeLowDBFS
        rangeHighDBFS = cell.rangeHighDBFS
        checkins = Int32(clamping: cell.checkins)
        devices = Int32(clamping: cell.devices)
        confidence = UInt8(Self.confidences.firstIndex(of: cell.confidence) ?? 0)
        basis = cell.basis.map { basis in UInt8(1 + (Self.bases.firstIndex(of: basis) ?? 0)) } ?? 0
    }

    var confidenceName: String { Self.confidences[Int(confidence)] }
    var estimateBasis: PatternEstimate.Basis? { basis == 0 ? nil : Self.bases[Int(basis) - 1] }
}
