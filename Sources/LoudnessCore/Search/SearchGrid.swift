import Foundation

/// Fixed latitude bands, each split into longitude cells about as wide as the band is high, for
/// finding the points within a radius on a sphere (docs/ARCHITECTURE.md, "Search"): a search reads
/// only the cells that its spherical cap's bounding box touches. Pure arithmetic: the venue index
/// keeps each cell's points in contiguous arrays.
///
/// Band `b` covers latitudes `[−90 + b·h, −90 + (b+1)·h)` (the last one includes 90); a band
/// whose middle latitude is `φ` has `max(1, ⌊360 · cos φ / h⌋)` cells of equal width, numbered
/// eastwards from −180°. So cells are about `h` × `h` degrees of arc near the equator and near the
/// poles alike, and a band at a pole is one cell.
public struct SearchGrid: Sendable, Equatable {
    /// A cell: its band and its column in the band.
    public struct Cell: Hashable, Sendable, Comparable {
        public var band: Int
        public var column: Int

        public init(band: Int, column: Int) {
            self.band = band
            self.column = column
        }

        public static func < (a: Cell, b: Cell) -> Bool { (a.band, a.column) < (b.band, b.column) }
    }

    /// The height of a band and the nominal width of a cell, degrees.
    public let bandDegrees: Double
    /// Bands from the south pole to the north pole.
    public let bandCount: Int
    /// Cells of each band.
    private let columns: [Int]

    /// Default 0.01° (about 1.1 km): a 1.5 km search reads about a dozen cells.
    public init(bandDegrees: Double = 0.01) {
        precondition(bandDegrees > 0 && bandDegrees <= 90, "a band is more than 0° and at most 90° high")
        self.bandDegrees = bandDegrees
        bandCount = Int((180 / bandDegrees).rounded(.up))
        columns = (0..<bandCount).map { band in
            let middle = min(90, -90 + (Double(band) + 0.5) * bandDegrees)
            return max(1, Int((360 * cos(middle * .pi / 180) / bandDegrees).rounded(.down)))
        }
    }

    /// Cells in band `band`.
    public func columns(inBand band: Int) -> Int { columns[band] }

    /// The band of a latitude (degrees, −90…90).
    public func band(latitude: Double) -> Int {
        min(bandCount - 1, max(0, Int(((latitude + 90) / bandDegrees).rounded(.down))))
    }

    /// The column of a longitude (degrees, −180…180) in band `band`.
    public func column(longitude: Double, band: Int) -> Int {
        let count = columns[band]
        return min(count - 1, max(0, Int(((longitude + 180) / 360 * Double(count)).rounded(.down))))
    }

    /// The cell of a point.
    public func cell(latitude: Double, longitude: Double) -> Cell {
        let band = band(latitude: latitude)
        return Cell(band: band, column: column(longitude: longitude, band: band))
    }

    /// What a search of `radiusMetres` around a point may reach, in degrees: the latitudes, and
    /// the longitude ranges (two when it crosses the antimeridian, the whole circle when it holds
    /// a pole or is wider than a hemisphere). Every point within the radius is inside — the
    /// bounds are widened by 10⁻⁹° (0.1 mm), far more than their rounding — and few outside are.
    public struct Cap: Sendable, Equatable {
        public var latitudes: ClosedRange<Double>
        public var longitudes: [ClosedRange<Double>]

        /// `init(latitude:longitude:radiusMetres:sphereRadiusMetres:)`: the cap's bounding box on
        /// a sphere. The cap's angular radius is `δ = r / R`; its latitudes `φ ± δ`; unless it
        /// holds a pole (`φ + δ ≥ 90°` or `φ − δ ≤ −90°`) its longitudes are `λ ± asin(sin δ / cos φ)`,
        /// the widest a cap reaches east and west.
        public init(
            latitude: Double, longitude: Double, radiusMetres: Double,
            sphereRadiusMetres: Double = SphereDistance.radiusMetres
        ) {
            let pad = 1e-9
            let delta = radiusMetres / sphereRadiusMetres
            let deltaDegrees = delta * 180 / .pi + pad
            let south = latitude - deltaDegrees
            let north = latitude + deltaDegrees
            latitudes = max(-90, south)...min(90, north)
            let phi = latitude * .pi / 180
            let ratio = sin(min(delta, .pi / 2)) / cos(phi)
            guard south > -90, north < 90, delta < .pi / 2, ratio < 1 else {
                longitudes = [-180...180]
                return
            }
            let half = asin(ratio) * 180 / .pi + pad
            let west = longitude - half
            let east = longitude + half
            if east - west >= 360 {
                longitudes = [-180...180]
            } else if west < -180 {
                longitudes = [(west + 360)...180, -180...east]
            } else if east > 180 {
                longitudes = [west...180, -180...(east - 360)]
            } else {
                longitudes = [west...east]
            }
        }

        /// Whether a point (degrees) is inside the box: a cheap test before measuring.
        public func contains(latitude: Double, longitude: Double) -> Bool {
            guard latitudes.contains(latitude) else { return false }
            for range in longitudes where range.contains(longitude) { return true }
            return false
        }
    }

    /// The cells a cap's box touches, band by band from the south, each band's westwards first.
    public func cells(touching cap: Cap) -> [Cell] {
        var cells: [Cell] = []
        for band in band(latitude: cap.latitudes.lowerBound)...band(latitude: cap.latitudes.upperBound) {
            var seen = Set<Int>()
            for range in cap.longitudes {
                let first = column(longitude: range.lowerBound, band: band)
                let last = column(longitude: range.upperBound, band: band)
                for column in first...last where seen.insert(column).inserted {
                    cells.append(Cell(band: band, column: column))
                }
            }
        }
        return cells
    }
}
