import Foundation
import HearClearModel
import HearClearServer
import HearClearServerTestSupport
import HearClearTestSupport
import HummingbirdTesting
import NIOCore
import PostgresNIO

@testable import HearClearAdmin
@testable import HearClearEngine

/// A small venue world with known figures, made through the public API and judged by the
/// engine's aggregator (run here, so the tests need no worker):
///
/// * "The Arms" (`arms`, Sydney): devices A, B, C at −38, −37.5, −38.5 dBFS in one hour, clean;
///   device D at −18 dBFS (an outlier); device E stuck at −30 dBFS for all 120 s (excluded).
///   Each check-in's Leq is its level − 0.0331 dB (the fixture's wobble), so the cell is
///   −38.0331 dBFS = 72.0 dB with the 110 dB reference: "moderate".
/// * `xss`, named `<script>alert(1)</script>`: one check-in of A at −38 dBFS, also 72.0 dB.
struct AdminDataSet {
    static let arms = "arms"
    static let xss = "xss"
    static let scriptName = "<script>alert(1)</script>"
    static let deviceA = "aaaaaaaa-0000-4000-8000-00000000000a"
    static let deviceB = "bbbbbbbb-0000-4000-8000-00000000000b"
    static let deviceC = "cccccccc-0000-4000-8000-00000000000c"
    static let deviceD = "dddddddd-0000-4000-8000-00000000000d"
    static let deviceE = "eeeeeeee-0000-4000-8000-00000000000e"
    static let allDevices = [deviceA, deviceB, deviceC, deviceD, deviceE]

    var a: CheckinFixture
    var b: CheckinFixture
    var c: CheckinFixture
    var outlier: CheckinFixture
    /// Device E's check-in: the same −30 dBFS every second.
    var stuck: UUID
    var xssCheckin: CheckinFixture

    static func make(_ client: some TestClientProtocol, _ database: PostgresClient) async throws -> AdminDataSet {
        let start = SubmissionFixture.previousHourStart
        for (id, name) in [(arms, "The Arms"), (xss, scriptName)] {
            let body: [String: Any] = [
                "name": name, "latitude": -33.8688, "longitude": 151.2093, "timezone": "Australia/Sydney",
                "category": "pub",
            ]
            let response = try await client.execute(
                uri: "/api/v2/venues/\(id)", method: .put, headers: [.contentType: "application/json"],
                body: ByteBuffer(bytes: try JSONSerialization.data(withJSONObject: body))
            )
            guard response.status == .created else { throw AdminBrowserError("venue \(id): \(response.status)") }
        }
        func fixture(
            _ venue: String, _ device: String, _ level: Double, model: String = "iPhone15,2", after seconds: Double = 0
        ) -> CheckinFixture {
            CheckinFixture(
                venue: venue, device: device, model: model, levelDBFS: level, start: start.addingTimeInterval(seconds))
        }
        let set = AdminDataSet(
            a: fixture(arms, deviceA, -38), b: fixture(arms, deviceB, -37.5), c: fixture(arms, deviceC, -38.5),
            outlier: fixture(arms, deviceD, -18, model: "Pixel 8"), stuck: UUID(),
            // Ten minutes after A's at the Arms, in the same hour: a phone is at one venue at a time.
            xssCheckin: fixture(xss, deviceA, -38, after: 600)
        )
        for checkin in [set.a, set.b, set.c, set.outlier, set.xssCheckin] {
            let status = try await checkin.submit(to: client)
            guard status == .created else { throw AdminBrowserError("check-in: \(status)") }
        }
        let samples = (0..<120).map { second -> [String: Any] in
            ["t": RFC3339.format(start.addingTimeInterval(Double(second))), "average": -30.0, "peak": -20.0]
        }
        let stuck: [String: Any] = [
            "id": set.stuck.uuidString.lowercased(), "venue": ["id": arms], "unit": "dbfs", "samples": samples,
            "device": ["id": deviceE, "model": "SM-G991B"],
        ]
        let response = try await client.execute(
            uri: "/api/v2/checkins", method: .post, headers: [.contentType: "application/json"],
            body: ByteBuffer(bytes: try JSONSerialization.data(withJSONObject: stuck))
        )
        guard response.status == .created else { throw AdminBrowserError("stuck check-in: \(response.status)") }
        try await aggregate(database)
        return set
    }

    /// Runs the engine's aggregator until the queue is empty.
    static func aggregate(_ database: PostgresClient) async throws {
        let aggregator = Aggregator(client: database, logger: testLogger)
        while !(try await aggregator.processNext(limit: 16).isEmpty) {}
    }

    static func link(_ checkin: CheckinFixture) -> String {
        link(checkin.id)
    }

    static func link(_ id: UUID) -> String {
        "/farmer/checkins/\(id.uuidString.lowercased())"
    }
}
