import Foundation
import HearClearModel
import HearClearStore
import HearClearTestSupport
import LoudnessCore
import PostgresNIO
import Testing

@testable import HearClearEngine

/// Check-ins measured in a browser (`/measure`) carry a coarse platform label as their model
/// (`browser/Android/Chrome`): the crowd calibration fits it an offset as it does a phone model.
@Suite("Crowd calibration of a browser's platform label")
struct BrowserCalibrationTests {
    let logger = engineTestLogger
    static let browser = "browser/Android/Chrome"
    /// What each model's devices read above the room, dB: the browsers 4 dB high.
    static let biases = [browser: 4.0, "iPhone15,2": -1.0, "Pixel 8": 0.0]

    static func room(venue: Int, hour: Int) -> Double { -42 + Double(hour - 10) + Double(venue) / 3 }

    func drain(_ aggregator: Aggregator) async throws {
        while !(try await aggregator.processNext(limit: 8).isEmpty) {}
    }

    @Test("browser check-ins biased by 4 dB get an offset 4 dB below the phones' mean, and their cells follow")
    func browserLabelFitted() async throws {
        try await withTestDatabase { client, _ in
            // 10 venues, Wednesday 10–13 h; in every cell one check-in of each model, from that
            // model's device at that venue.
            try await CrowdCalibrationWorkerTests.ingestCity(
                client, venues: 10, prefix: "b", biases: Self.biases, room: Self.room)
            let aggregator = Aggregator(client: client, logger: logger)
            try await drain(aggregator)
            let calibrator = Calibrator(client: client, referenceOffsetDB: 110, logger: logger)
            let applied = try #require(try await calibrator.refit())
            #expect(applied.changedModels == [Self.browser, "Pixel 8", "iPhone15,2"].sorted())
            // Biases +4, −1 and 0 with equal evidence, mean +1: offsets −3, +2 and +1.
            let models = Dictionary(
                uniqueKeysWithValues: try await calibrator.calibrations.models().map { ($0.model, $0) })
            for (model, expected) in [(Self.browser, -3.0), ("iPhone15,2", 2.0), ("Pixel 8", 1.0)] {
                let calibration = try #require(models[model], "\(model)")
                #expect(calibration.crowd?.status == .fitted, "\(model)")
                #expect(calibration.inForce?.source == .crowd, "\(model)")
                #expect(abs((calibration.inForce?.offsetDB ?? 99) - expected) < 0.02, "\(model): \(calibration)")
                #expect(calibration.devices == 10)
            }
            // The browsers' hours now carry their offset, and their check-ins read as the phones'.
            try await drain(aggregator)
            let offsets = try await client.query(
                """
                SELECT DISTINCT round(h.model_offset_db::numeric, 2)::float8
                FROM checkin_hours h JOIN devices d ON d.id = h.device_id WHERE d.model = \(Self.browser)
                """,
                logger: logger
            ).collect().map { try $0.decode(Double.self) }
            #expect(offsets == [-3])
        }
    }
}
