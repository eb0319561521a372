import Foundation
import Logging
import PostgresNIO

extension PostgresClient {
    /// Runs `body` in a transaction, rethrowing `body`'s own error (PostgresNIO's
    /// `withTransaction` wraps it) after rolling back.
    func transaction<Result: Sendable>(
        logger: Logger, _ body: (PostgresConnection) async throws -> Result
    ) async throws -> Result {
        try await withConnection { connection in
            try await connection.query("BEGIN", logger: logger)
            do {
                let result = try await body(connection)
                try await connection.query("COMMIT", logger: logger)
                return result
            } catch {
                _ = try? await connection.query("ROLLBACK", logger: logger)
                throw error
            }
        }
    }
}

/// Great-circle distance on a sphere of radius 6,371,008.8 m (the IUGG mean Earth radius),
/// by the haversine formula; good to about 0.5 % at venue scale.
public func greatCircleDistanceMetres(
    fromLatitude lat1: Double, longitude lon1: Double, toLatitude lat2: Double, longitude lon2: Double
) -> Double {
    let radians = Double.pi / 180
    let dLat = (lat2 - lat1) * radians
    let dLon = (lon2 - lon1) * radians
    let a = pow(sin(dLat / 2), 2) + cos(lat1 * radians) * cos(lat2 * radians) * pow(sin(dLon / 2), 2)
    return 2 * 6_371_008.8 * asin(min(1, a.squareRoot()))
}
