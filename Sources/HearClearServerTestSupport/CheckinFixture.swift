import Foundation
import HearClearEngine
import HearClearModel
import HearClearServer
import HearClearTestSupport
import Hummingbird
import HummingbirdTesting
import LoudnessCore

/// v2 check-ins with clean, varied seconds around a level (never a stuck meter, never a spike).
public struct CheckinFixture: Sendable {
    /// python3: 10*log10(mean(10**(w/10))) of 120 seconds of the wobble: a check-in's Leq is its
    /// level plus this.
    public static let wobbleLeqDB = -0.0331

    public var id = UUID()
    public var venue: String
    public var timezone: String? = "Australia/Sydney"
    public var device: String
    public var model: String? = "iPhone15,2"
    public var levelDBFS: Double
    public var start: Date
    public var seconds = 120

    public init(
        id: UUID = UUID(), venue: String, timezone: String? = "Australia/Sydney", device: String,
        model: String? = "iPhone15,2", levelDBFS: Double, start: Date, seconds: Int = 120
    ) {
        self.id = id
        self.venue = venue
        self.timezone = timezone
        self.device = device
        self.model = model
        self.levelDBFS = levelDBFS
        self.start = start
        self.seconds = seconds
    }

    public var json: ByteBuffer {
        let samples = (0..<seconds).map { second -> [String: Any] in
            let average = levelDBFS + SubmissionFixture.wobbleDB[second % SubmissionFixture.wobbleDB.count]
            return [
                "t": RFC3339.format(start.addingTimeInterval(Double(second))), "average": average, "peak": average + 10,
            ]
        }
        var venueObject: [String: Any] = [
            "id": venue, "name": "Venue \(venue)", "latitude": -33.8688, "longitude": 151.2093,
        ]
        if let timezone { venueObject["timezone"] = timezone }
        var deviceObject: [String: Any] = ["id": device]
        if let model { deviceObject["model"] = model }
        let body: [String: Any] = [
            "id": id.uuidString.lowercased(), "venue": venueObject, "device": deviceObject, "unit": "dbfs",
            "samples": samples,
        ]
        return ByteBuffer(bytes: try! JSONSerialization.data(withJSONObject: body))
    }

    /// The venue-local hour of the first sample.
    public var localHour: LocalHour {
        let clock = timezone.flatMap(VenueClock.init(timeZoneIdentifier:)) ?? VenueClock(utcOffsetMinutes: 0)
        return clock.localHour(at: start)
    }

    /// Posts it; returns the status code.
    @discardableResult
    public func submit(to client: some TestClientProtocol) async throws -> HTTPResponse.Status {
        try await client.execute(
            uri: "/api/v2/checkins", method: .post, headers: [.contentType: "application/json"], body: json
        ) { $0.status }
    }
}
