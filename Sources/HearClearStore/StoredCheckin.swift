import Foundation
import Logging
import PostgresNIO

/// A check-in as stored, with its current judgement.
public struct StoredCheckin: Sendable, Equatable {
    public var id: UUID
    public var venueExternalID: String
    public var deviceID: String
    public var deviceModel: String?
    public var source: CheckinSource
    public var startedAt: Date
    public var offsetsSeconds: [Int32]
    public var utcOffsetsMinutes: [Int16]
    public var averageDBFS: [Float]
    public var peakDBFS: [Float]
    public var location: CheckinSubmission.Location?
    public var distanceMetres: Double?
    public var status: String
    public var reasons: [String]
    public var levelDBFS: Float?
    public var validSeconds: Int?
    public var judgedAt: Date?
    public var zoneGuessed: Bool
    public var receipt: CheckinReceipt

    /// Same content as `submission`: what a retry of the same request would carry. Times are
    /// compared to the millisecond (PostgreSQL keeps microseconds).
    public func matches(_ submission: CheckinSubmission) -> Bool {
        venueExternalID == submission.venue.externalID && deviceID == submission.deviceID
            && source == submission.source
            && abs(startedAt.timeIntervalSince(submission.startedAt)) < 0.001
            && offsetsSeconds == submission.offsetsSeconds && utcOffsetsMinutes == submission.utcOffsetsMinutes
            && averageDBFS == submission.averageDBFS
            && peakDBFS == submission.peakDBFS && location == submission.location
    }
}

extension CheckinRepository {
    public func find(id: UUID) async throws -> StoredCheckin? {
        try await storedContent(id: id)
    }

    func storedContent(id: UUID) async throws -> StoredCheckin? {
        let rows = try await client.query(
            """
            SELECT c.id, v.external_id, d.client_id, d.model, c.source, c.started_at, c.offsets_s,
                   c.average_dbfs, c.peak_dbfs, c.location_latitude, c.location_longitude,
                   c.location_accuracy_m, c.distance_m, c.status, c.reasons, c.level_dbfs, c.valid_seconds,
                   c.judged_at, c.zone_guessed, c.receipt_status, c.receipt_reasons, c.received_at, c.utc_offsets_min
            FROM checkins c JOIN venues v ON v.id = c.venue_id JOIN devices d ON d.id = c.device_id
            WHERE c.id = \(id)
            """,
            logger: logger
        )
        for try await row in rows.decode(
            (
                UUID, String, String, String?, String, Date, [Int32], [Float], [Float], Double?, Double?, Double?,
                Double?, String, [String], Float?, Int?, Date?, Bool, String, [String], Date, [Int16]
            ).self
        ) {
            var location: CheckinSubmission.Location?
            if let latitude = row.9, let longitude = row.10 {
                location = .init(latitude: latitude, longitude: longitude, accuracyMetres: row.11)
            }
            let receipt = CheckinReceipt(
                id: row.0, venueExternalID: row.1, status: row.19, reasons: row.20, receivedAt: row.21,
                sampleCount: row.7.count
            )
            return StoredCheckin(
                id: row.0, venueExternalID: row.1, deviceID: row.2, deviceModel: row.3,
                source: CheckinSource(rawValue: row.4) ?? .v2, startedAt: row.5, offsetsSeconds: row.6,
                utcOffsetsMinutes: row.22,
                averageDBFS: row.7, peakDBFS: row.8, location: location, distanceMetres: row.12, status: row.13,
                reasons: row.14, levelDBFS: row.15, validSeconds: row.16, judgedAt: row.17, zoneGuessed: row.18,
                receipt: receipt
            )
        }
        return nil
    }
}
