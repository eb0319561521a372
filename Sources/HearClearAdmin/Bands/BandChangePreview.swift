import HearClearEngine
import HearClearModel
import LoudnessCore

/// How many stored cells would get another label under other bands. Each cell is labelled as v1,
/// v2 and the admin label it (``LoudnessReads``: calibrated, rounded to 0.1 dB, then the bands).
struct BandChangePreview: Equatable {
    struct Transition: Equatable {
        var from: String
        var to: String
        var cells: Int
    }

    var totalCells = 0
    var changedCells = 0
    /// Label changes, most cells first.
    var transitions: [Transition] = []

    /// The preview over `levels` (each stored level with its number of cells).
    init(levels: [(levelDBFS: Double, cells: Int)], from current: Bands, to proposed: Bands, referenceOffsetDB: Double)
    {
        var changes: [String: Transition] = [:]
        for (levelDBFS, cells) in levels {
            let level = LoudnessReads.rounded(levelDBFS + referenceOffsetDB)
            let before = LoudnessReads.label(ofCalibratedDB: level, bands: current)
            let after = LoudnessReads.label(ofCalibratedDB: level, bands: proposed)
            totalCells += cells
            guard before != after else { continue }
            changedCells += cells
            changes["\(before)\u{0}\(after)", default: Transition(from: before, to: after, cells: 0)].cells += cells
        }
        transitions = changes.values.sorted {
            ($1.cells, $0.from, $0.to) < ($0.cells, $1.from, $1.to)
        }
    }
}
