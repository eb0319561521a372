import Foundation
import HearClearModel
import HearClearStore

/// Check-ins stored through `CheckinRepository.ingest`, below the HTTP validator: the DST tests
/// need sample times months in the past, which the API refuses (samples must be under 14 days old).
public enum SubmissionFixture {
    /// Clean, varied seconds around a level: never a stuck meter, never a spike.
    public static let wobbleDB: [Double] = [0, 0.4, -0.3, 0.2, -0.5, 0.1, -0.2]

    /// 10 minutes past the previous whole UTC hour: in the past, inside the 14-day window, and
    /// (at whole-hour zone offsets) inside one venue-local hour for a few minutes.
    public static var previousHourStart: Date {
        let now = Date().timeIntervalSince1970
        return Date(timeIntervalSince1970: (now / 3_600).rounded(.down) * 3_600 - 3_600 + 600)
    }

    public static func submission(
        venue: String, timezone: String?, device: String, levelDBFS: Double, start: Date, seconds: Int = 300,
        utcOffsetsMinutes: [Int16] = [0]
    ) -> CheckinSubmission {
        let averages = (0..<seconds).map {
            Float(levelDBFS + wobbleDB[$0 % wobbleDB.count])
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
