import Foundation
import HearClearEngine

/// A v2 check-in body (docs/ARCHITECTURE.md, "API v2 rules") made from metered samples:
/// `average` = RMS, `peak`, in dBFS.
struct CheckinUploadBody: Encodable {
    struct Venue: Encodable {
        var id: String
        var name: String?
        var latitude: Double?
        var longitude: Double?
        var timezone: String?
    }

    struct Device: Encodable {
        var id: String
        var model: String?
    }

    struct Sample: Encodable {
        var t: String
        var average: Double
        var peak: Double
    }

    var id: String
    var venue: Venue
    var device: Device
    var unit: String
    var samples: [Sample]

    init(id: UUID, report: MeterReport, options: SubmitOptions) {
        self.id = id.uuidString.lowercased()
        venue = Venue(
            id: options.venue ?? "", name: options.venueName, latitude: options.latitude,
            longitude: options.longitude, timezone: options.timezone)
        device = Device(id: options.device ?? "", model: options.model)
        unit = report.unit
        samples = report.samples.map { Sample(t: $0.t ?? "", average: $0.average, peak: $0.peak) }
    }
}
