import Foundation
import LoudnessCore

/// One row of `loudness_cells`: a venue-local weekday × hour estimate. Levels are model-corrected
/// dBFS (dBFS + device-model offset); add the reference offset for calibrated dB.
public struct StoredCell: Sendable, Equatable {
    /// ISO weekday, 1 = Monday … 7 = Sunday.
    public var weekday: Int
    public var hour: Int
    public var levelDBFS: Double
    public var rangeLowDBFS: Double
    public var rangeHighDBFS: Double
    public var scaleDB: Double
    /// Check-ins in the estimate (outliers left out); 0 for an estimated cell.
    public var checkins: Int
    public var devices: Int
    /// `low`, `medium` or `high`.
    public var confidence: String
    /// What an estimated cell (no check-ins of its own) rests on (``PatternEstimate/Basis``);
    /// `nil` for a measured cell.
    public var basis: PatternEstimate.Basis?
    public var updatedAt: Date
    /// The measured cell's sound character, when it has one (`character_*`). Read only with
    /// ``characterColumns``; nil from ``columns`` alone.
    public var character: CellCharacter?

    /// An estimated cell: predicted, not measured.
    public var estimated: Bool { basis != nil }

    public init(
        weekday: Int, hour: Int, levelDBFS: Double, rangeLowDBFS: Double, rangeHighDBFS: Double, scaleDB: Double,
        checkins: Int, devices: Int, confidence: String, basis: PatternEstimate.Basis? = nil, updatedAt: Date = Date(),
        character: CellCharacter? = nil
    ) {
        self.weekday = weekday
        self.hour = hour
        self.levelDBFS = levelDBFS
        self.rangeLowDBFS = rangeLowDBFS
        self.rangeHighDBFS = rangeHighDBFS
        self.scaleDB = scaleDB
        self.checkins = checkins
        self.devices = devices
        self.confidence = confidence
        self.basis = basis
        self.updatedAt = updatedAt
        self.character = character
    }

    /// Where the cell is in the week.
    public var position: CellPosition { CellPosition(weekday: weekday, hour: hour) }

    /// Same estimate, compared at the `real` precision it is stored with (`updatedAt` aside).
    public func sameEstimate(as other: StoredCell) -> Bool {
        func same(_ a: Double, _ b: Double) -> Bool { Float(a) == Float(b) }
        return position == other.position && same(levelDBFS, other.levelDBFS)
            && same(rangeLowDBFS, other.rangeLowDBFS) && same(rangeHighDBFS, other.rangeHighDBFS)
            && same(scaleDB, other.scaleDB) && checkins == other.checkins && devices == other.devices
            && confidence == other.confidence && basis == other.basis && sameCharacter(as: other)
    }

    /// Same character, its levels at `real` precision.
    func sameCharacter(as other: StoredCell) -> Bool {
        switch (character, other.character) {
        case (nil, nil): return true
        case (let a?, let b?):
            return a.seconds == b.seconds && a.checkins == b.checkins && a.classSeconds == b.classSeconds
                && a.lcMinusLaDB.map(Float.init) == b.lcMinusLaDB.map(Float.init)
                && Float(a.la90DBFS) == Float(b.la90DBFS)
        default: return false
        }
    }
}

/// A venue-local weekday × hour: the key of a cell.
public struct CellPosition: Hashable, Sendable, Comparable {
    /// ISO weekday, 1 = Monday … 7 = Sunday.
    public var weekday: Int
    public var hour: Int

    public init(weekday: Int, hour: Int) {
        self.weekday = weekday
        self.hour = hour
    }

    public static func < (a: CellPosition, b: CellPosition) -> Bool {
        (a.weekday, a.hour) < (b.weekday, b.hour)
    }
}
