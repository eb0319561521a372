import Foundation
import HearClearStore

/// Check-ins stored through `CheckinRepository.ingest`, below the HTTP validator: the DST tests
/// need sample times months in the past, which the API refuses (samples must be under 14 days old).
enum SubmissionFixture {
    static func submission(
        venue: String, timezone: String?, device: String, levelDBFS: Double, start: Date, seconds: Int = 300,
        utcOffsetsMinutes: [Int16] = [0]
    ) -> CheckinSubmission {
        let averages = (0..<seconds).map {
            Float(levelDBFS + CheckinFixture.wobbleDB[$0 % CheckinFixture.wobbleDB.count])
        }
        return CheckinSubmission(
            id: UUID(),
            venue: .init(
                externalID: venue,
                details: VenueDetails(name: "Venue \(venue)", latitude: 0, longitude: 0, timezone: timezone)),
            deviceID: device, deviceModel: nil, location: nil, source: .v2, startedAt: start,
            offsetsSeconds: (0..<seconds).map(Int32.init), utcOffsetsMinutes: utcOffsetsMinutes, averageDBFS: averages,
            peakDBFS: averages.map { $0 + 10 })
    }
}
