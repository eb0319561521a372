import Foundation

/// Distances on the Earth's surface.
public enum GreatCircle {
    /// The IUGG mean Earth radius.
    public static let earthRadiusMetres = 6_371_008.8

    /// Great-circle distance on a sphere of radius ``earthRadiusMetres``, by the haversine
    /// formula; good to about 0.5 % at venue scale.
    public static func distanceMetres(
        fromLatitude lat1: Double, longitude lon1: Double, toLatitude lat2: Double, longitude lon2: Double
    ) -> Double {
        let radians = Double.pi / 180
        let dLat = (lat2 - lat1) * radians
        let dLon = (lon2 - lon1) * radians
        let a = pow(sin(dLat / 2), 2) + cos(lat1 * radians) * cos(lat2 * radians) * pow(sin(dLon / 2), 2)
        return 2 * earthRadiusMetres * asin(min(1, a.squareRoot()))
    }
}
