import Foundation

/// Great-circle distance on PostGIS's sphere, computed exactly as PostGIS computes it for two
/// geography points with `use_spheroid = false` and for the `<->` operator (docs/ARCHITECTURE.md,
/// "Search"): the same radius, the same conversion of degrees to radians, the same normalisation
/// of longitudes and the same formula, operation for operation, so that on the same C library
/// the result is the same double. `SearchIndexEquivalenceTests` holds it to PostGIS's.
public enum SphereDistance {
    /// PostGIS's sphere: the mean radius of WGS 84, `(2a + b) / 3` with `a` = 6,378,137 m and
    /// `b` = 6,356,752.314245179 m, i.e. 6,371,008.771415… m.
    public static let radiusMetres = (2 * 6_378_137.0 + 6_356_752.314245179) / 3

    /// A point prepared for measuring: radians (longitude normalised as PostGIS does) and the
    /// sine and cosine of its latitude, which every distance from it needs.
    public struct Point: Sendable, Equatable {
        public let latitude: Double
        public let longitude: Double
        public let sinLatitude: Double
        public let cosLatitude: Double

        /// `init(latitude:longitude:)`: a point given in degrees.
        public init(latitude: Double, longitude: Double) {
            self.latitude = SphereDistance.radians(latitude)
            self.longitude = SphereDistance.normalisedLongitude(SphereDistance.radians(longitude))
            sinLatitude = sin(self.latitude)
            cosLatitude = cos(self.latitude)
        }
    }

    /// Degrees to radians as PostGIS writes it: `π · d / 180`.
    static func radians(_ degrees: Double) -> Double { Double.pi * degrees / 180 }

    /// A longitude in radians brought into (−π, π], as PostGIS's `longitude_radians_normalize`.
    static func normalisedLongitude(_ longitude: Double) -> Double {
        var lon = longitude
        if lon == -Double.pi { return Double.pi }
        if lon == -2 * Double.pi { return 0 }
        if lon > 2 * Double.pi { lon = remainder(lon, 2 * Double.pi) }
        if lon < -2 * Double.pi { lon = remainder(lon, -2 * Double.pi) }
        if lon > Double.pi { lon = -2 * Double.pi + lon }
        if lon < -Double.pi { lon = 2 * Double.pi + lon }
        if lon == -2 * Double.pi { lon *= -1 }
        return lon
    }

    /// `metres(from:to:)`: the distance from `s` to `e` in metres, as PostGIS's `sphere_distance`
    /// (Vincenty's formula on the sphere) times the radius. The order matters in the last bit:
    /// `a <-> b` measures from `a` to `b`; search measures from the venue to the point searched.
    public static func metres(from s: Point, to e: Point) -> Double {
        let dLon = e.longitude - s.longitude
        let cosDLon = cos(dLon)
        let a1 = e.cosLatitude * sin(dLon)
        let a2 = s.cosLatitude * e.sinLatitude - s.sinLatitude * e.cosLatitude * cosDLon
        let a = (a1 * a1 + a2 * a2).squareRoot()
        let b = s.sinLatitude * e.sinLatitude + s.cosLatitude * e.cosLatitude * cosDLon
        return radiusMetres * atan2(a, b)
    }

    /// PostGIS's `ST_Distance(geography, geography, false)` of the same two points when it
    /// measures one pair: ``metres(from:to:)`` rounded to 10⁻⁹ m (PostGIS knocks off "funny
    /// business at the micrometre level").
    public static func roundedMetres(from s: Point, to e: Point) -> Double {
        (metres(from: s, to: e) * 10e8).rounded() / 10e8
    }
}
