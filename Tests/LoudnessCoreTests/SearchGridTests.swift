import Foundation
import Testing

@testable import LoudnessCore

/// The pure parts of search from memory: PostGIS's sphere distance, the grid's cells and a cap's
/// box, checked by numbers derived by hand (R = (2a + b) / 3 of WGS 84 = 6,371,008.771415 m; an arc
/// of θ degrees is R · π · θ / 180) and by brute force.
@Suite("Search grid and sphere distance")
struct SearchGridTests {
    /// R · π / 180: one degree of a great circle, metres.
    static let degree = 6_371_008.771415059 * Double.pi / 180

    @Test func sphereRadiusIsPostGISMeanRadius() {
        #expect(abs(SphereDistance.radiusMetres - 6_371_008.771415059) < 1e-6)
    }

    @Test func distancesAlongGreatCirclesAreArcsOfTheSphere() {
        func metres(_ a: (Double, Double), _ b: (Double, Double)) -> Double {
            SphereDistance.metres(
                from: .init(latitude: a.0, longitude: a.1), to: .init(latitude: b.0, longitude: b.1))
        }
        // One degree along the equator and along a meridian: 111,195.0797 m.
        #expect(abs(metres((0, 0), (0, 1)) - 111_195.079_734_6) < 1e-6)
        #expect(abs(metres((10, 30), (11, 30)) - Self.degree) < 1e-6)
        // Across the antimeridian: 179.5° E to 179.5° W is one degree, not 359.
        #expect(abs(metres((0, 179.5), (0, -179.5)) - Self.degree) < 1e-6)
        // Over the pole: 89.9° N on opposite meridians is 0.2° apart, 22,239.0159 m.
        #expect(abs(metres((89.9, 0), (89.9, 180)) - 22_239.015_946_9) < 1e-6)
        // −180° and 180° are one meridian; a point is 0 m from itself.
        #expect(metres((45, -180), (45, 180)) == 0)
        #expect(metres((-33.87, 151.21), (-33.87, 151.21)) == 0)
        // ST_Distance's rounding to 10⁻⁹ m.
        let rounded = SphereDistance.roundedMetres(
            from: .init(latitude: 0, longitude: 0), to: .init(latitude: 0, longitude: 1))
        #expect(rounded == (111_195.079_734_631_58 * 1e9).rounded() / 1e9)
    }

    @Test func bandsAndColumnsFollowTheirDefinition() {
        let grid = SearchGrid(bandDegrees: 0.01)
        #expect(grid.bandCount == 18_000)
        // Band of 0.005°: ⌊(0.005 + 90) / 0.01⌋ = 9000; its cells: ⌊360 · cos 0.005° / 0.01⌋ = 35,999.
        #expect(grid.band(latitude: 0.005) == 9_000)
        #expect(grid.columns(inBand: 9_000) == 35_999)
        // Sydney's band (−33.88…−33.87, middle −33.875°): ⌊360 · cos 33.875° / 0.01⌋ = 29,889 cells.
        #expect(grid.columns(inBand: grid.band(latitude: -33.871)) == 29_889)
        // The last band (89.99…90, middle 89.995°): ⌊360 · cos 89.995° / 0.01⌋ = 3 cells.
        #expect(grid.band(latitude: 90) == 17_999)
        #expect(grid.columns(inBand: 17_999) == 3)
        #expect(grid.band(latitude: -90) == 0)
        // Longitude −180 is column 0, 180 the last column.
        #expect(grid.column(longitude: -180, band: 9_000) == 0)
        #expect(grid.column(longitude: 180, band: 9_000) == 35_998)
        #expect(grid.column(longitude: 0, band: 9_000) == 17_999)
    }

    @Test func capBoxesByHand() {
        // 1,500 m is δ = 1500 / R rad = 0.0134898055°; at the equator the box is ±δ both ways.
        let delta = 0.013_489_805_516_393_068
        let equator = SearchGrid.Cap(latitude: 0, longitude: 0, radiusMetres: 1_500)
        #expect(abs(equator.latitudes.upperBound - delta) < 1e-8)
        #expect(abs(equator.latitudes.lowerBound + delta) < 1e-8)
        #expect(equator.longitudes.count == 1)
        #expect(abs(equator.longitudes[0].upperBound - delta) < 1e-8)
        // At 60°, asin(sin δ / cos 60°) = 0.0269796118°: about twice as wide.
        let north = SearchGrid.Cap(latitude: 60, longitude: 10, radiusMetres: 1_500)
        #expect(abs(north.longitudes[0].upperBound - (10 + 0.026_979_611_780_562_684)) < 1e-8)
        // Across the antimeridian: two ranges.
        let fiji = SearchGrid.Cap(latitude: 0, longitude: 179.995, radiusMetres: 1_500)
        #expect(fiji.longitudes.count == 2)
        #expect(abs(fiji.longitudes[0].lowerBound - (179.995 - delta)) < 1e-8)
        #expect(fiji.longitudes[0].upperBound == 180)
        #expect(fiji.longitudes[1].lowerBound == -180)
        #expect(abs(fiji.longitudes[1].upperBound - (179.995 + delta - 360)) < 1e-8)
        #expect(fiji.contains(latitude: 0, longitude: -179.995))
        #expect(!fiji.contains(latitude: 0, longitude: 0))
        // Holding the pole: every longitude, up to 90°.
        let pole = SearchGrid.Cap(latitude: 89.99, longitude: 0, radiusMetres: 1_500)
        #expect(pole.longitudes == [-180...180])
        #expect(pole.latitudes.upperBound == 90)
    }

    /// Every venue within the radius (by ``SphereDistance``) is in the cap's box and in one of the
    /// cells it touches: random points everywhere (antimeridian and poles included), radii up to
    /// 50 km, venues scattered around each point.
    @Test func everyVenueWithinTheRadiusIsInATouchedCell() {
        var generator = SystemRandomNumberGenerator()
        let grid = SearchGrid()
        var within = 0
        for round in 0..<400 {
            let latitude =
                round % 10 == 0
                ? Double.random(in: 89.5...90, using: &generator) * (round % 20 == 0 ? 1 : -1)
                : Double.random(in: -89...89, using: &generator)
            let longitude = round % 7 == 0 ? 179.99 : Double.random(in: -180...180, using: &generator)
            let radius = [30.0, 1_500, 10_000, 50_000][round % 4]
            let cap = SearchGrid.Cap(latitude: latitude, longitude: longitude, radiusMetres: radius)
            let cells = Set(grid.cells(touching: cap))
            let centre = SphereDistance.Point(latitude: latitude, longitude: longitude)
            let spread = radius / Self.degree * 1.5
            for _ in 0..<200 {
                let venueLatitude = min(90, max(-90, latitude + Double.random(in: -spread...spread, using: &generator)))
                var venueLongitude =
                    longitude
                    + Double.random(in: -spread...spread, using: &generator)
                    / max(0.01, cos(venueLatitude * .pi / 180))
                venueLongitude = venueLongitude.truncatingRemainder(dividingBy: 360)
                if venueLongitude > 180 { venueLongitude -= 360 }
                if venueLongitude < -180 { venueLongitude += 360 }
                let venue = SphereDistance.Point(latitude: venueLatitude, longitude: venueLongitude)
                guard SphereDistance.metres(from: venue, to: centre) <= radius else { continue }
                within += 1
                #expect(cap.contains(latitude: venueLatitude, longitude: venueLongitude))
                #expect(cells.contains(grid.cell(latitude: venueLatitude, longitude: venueLongitude)))
            }
        }
        #expect(within > 10_000)
    }
}
