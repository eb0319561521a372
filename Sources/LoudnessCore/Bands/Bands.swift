import Foundation

/// A validated, ordered list of loudness bands covering every level, in calibrated dB.
public struct Bands: Sendable, Equatable {
    /// The defaults (docs/ARCHITECTURE.md, "Bands and labels"): quiet < 70, moderate 70–75, loud 75–80, very loud ≥ 80.
    public static let standard = Bands(unchecked: [
        Band(label: "quiet", belowDB: 70),
        Band(label: "moderate", belowDB: 75),
        Band(label: "loud", belowDB: 80),
        Band(label: "very loud", belowDB: nil),
    ])

    /// The bands, quietest first; the last has no bound.
    public let bands: [Band]

    /// `init(_:)`: validates that there is at least one band, labels are non-blank and unique
    /// (ignoring case), bounds are finite and strictly increasing, and exactly the last band is
    /// unbounded; throws the first problem found.
    public init(_ bands: [Band]) throws(BandsError) {
        guard let last = bands.last else { throw .empty }
        var seen: Set<String> = []
        var previous: Double?
        for (index, band) in bands.enumerated() {
            let key = band.label.trimmingCharacters(in: .whitespacesAndNewlines).lowercased()
            guard !key.isEmpty else { throw .emptyLabel(index: index) }
            guard seen.insert(key).inserted else { throw .duplicateLabel(band.label) }
            guard let bound = band.belowDB else {
                if index != bands.count - 1 { throw .unboundedBandNotLast(index: index) }
                continue
            }
            guard bound.isFinite else { throw .nonFiniteBound(index: index) }
            if let previous, bound <= previous { throw .boundsNotIncreasing(index: index) }
            previous = bound
        }
        guard last.belowDB == nil else { throw .lastBandBounded }
        self.bands = bands
    }

    private init(unchecked bands: [Band]) {
        self.bands = bands
    }

    /// `band(for:)`: the first band whose bound is above `calibratedDB` (a level equal to a bound
    /// belongs to the band above it), else the last band; NaN gets the last band.
    public func band(for calibratedDB: Double) -> Band {
        bands.first { band in band.belowDB.map { calibratedDB < $0 } ?? false }
            ?? bands[bands.count - 1]
    }

    /// `label(for:)`: the label of ``band(for:)``.
    public func label(for calibratedDB: Double) -> String {
        band(for: calibratedDB).label
    }
}
