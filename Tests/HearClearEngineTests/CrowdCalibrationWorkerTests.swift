import Foundation
import HearClearModel
import HearClearStore
import HearClearTestSupport
import LoudnessCore
import PostgresNIO
import Testing

@testable import HearClearEngine

/// The crowd calibration through the store and the worker: offsets fitted from co-located
/// check-ins, put in force, anchored by a reference calibration, overridden, and applied to the
/// cells, each of which records the fit it used.
@Suite("Crowd calibration through the worker")
struct CrowdCalibrationWorkerTests {
    let logger = engineTestLogger
    /// 2026-11-18 10:00:00 UTC, a Wednesday (weekday 3).
    static let wednesday = Date(timeIntervalSince1970: 1_794_996_000)
    /// Each model's bias: what its phones read above the room, dB.
    static let biases = ["Loud": 3.0, "Quiet": -1.0, "Plain": 0.0]

    /// 12 venues, Wednesday 10–13 h; in every cell one check-in of each model, from that model's
    /// phone at that venue (a phone is at one venue at a time); the room is at
    /// −40 + hour − 10 + venue/4 dBFS.
    func city(_ client: PostgresClient) async throws -> [Int64] {
        try await Self.ingestCity(client, venues: 12, prefix: "v", biases: Self.biases, room: Self.room)
        var keys: [Int64] = []
        for venue in 0..<12 {
            keys.append(
                try #require(
                    try await AggregationQueue(client: client, logger: logger).venueKey(externalID: "v\(venue)")))
        }
        return keys
    }

    /// `SubmissionFixture`'s wobble as Leq above the level: 10·log10 of the mean of 10^(w/10)
    /// over 120 seconds of the repeating pattern.
    static var wobbleLeqDB: Double {
        let seconds = (0..<120).map { SubmissionFixture.wobbleDB[$0 % SubmissionFixture.wobbleDB.count] }
        return 10 * log10(seconds.map { pow(10, $0 / 10) }.reduce(0, +) / 120)
    }

    func meanScale(_ client: PostgresClient) async throws -> Double {
        try await client.query("SELECT avg(scale_db)::float8 FROM loudness_cells WHERE NOT estimated", logger: logger)
            .collect().first?.decode(Double.self) ?? 0
    }

    static func room(venue: Int, hour: Int) -> Double { -40 + Double(hour - 10) + Double(venue) / 4 }

    /// `venues` venues `<prefix>0…`, Wednesday 10–13 h; in every cell one check-in of each model
    /// (two minutes at the room's level plus the model's bias), from that model's phone at that
    /// venue (a phone is at one venue at a time).
    static func ingestCity(
        _ client: PostgresClient, venues: Int, prefix: String, biases: [String: Double],
        room: (_ venue: Int, _ hour: Int) -> Double
    ) async throws {
        let checkins = CheckinRepository(client: client, logger: engineTestLogger)
        for venue in 0..<venues {
            for hour in 10...13 {
                for (model, bias) in biases.sorted(by: { $0.key < $1.key }) {
                    var submission = SubmissionFixture.submission(
                        venue: "\(prefix)\(venue)", timezone: nil, device: "\(model)-\(venue)",
                        levelDBFS: room(venue, hour) + bias,
                        start: wednesday.addingTimeInterval(Double(hour - 10) * 3_600 + 300), seconds: 120)
                    submission.deviceModel = model
                    _ = try await checkins.ingest(submission, maxDistanceMetres: 250)
                }
            }
        }
    }

    func drain(_ aggregator: Aggregator) async throws {
        while !(try await aggregator.processNext(limit: 8).isEmpty) {}
    }

    /// Every cell's level less the room's, and the fits the cells recorded.
    func cellErrors(_ client: PostgresClient, venues: [Int64]) async throws -> (errors: [Double], fits: Set<Int64?>) {
        var errors: [Double] = []
        var fits: Set<Int64?> = []
        for (index, venue) in venues.enumerated() {
            let rows = try await client.query(
                "SELECT hour, level_dbfs::float8, calibration_fit_id FROM loudness_cells WHERE venue_id = \(venue) AND NOT estimated",
                logger: logger)
            for try await (hour, level, fit) in rows.decode((Int16, Double, Int64?).self) {
                errors.append(level - Self.room(venue: index, hour: Int(hour)))
                fits.insert(fit)
            }
        }
        return (errors, fits)
    }

    @Test("models are fitted, anchored, overridden, and the cells follow")
    func fitAnchorOverride() async throws {
        try await withTestDatabase { client, _ in
            let aggregator = Aggregator(client: client, logger: logger)
            let calibrator = Calibrator(client: client, referenceOffsetDB: 110, logger: logger)
            let venues = try await city(client)
            try await drain(aggregator)
            // Before calibration each cell rests on room + 3, room − 1 and room, three phones
            // 4 dB apart: its scale is wide.
            let before = try await cellErrors(client, venues: venues)
            #expect(before.errors.count == 48)
            let scaleBefore = try await meanScale(client)
            // The fixture's per-second wobble raises every check-in's Leq above its level by the
            // same amount: its energetic mean over 120 seconds, by hand.
            let wobble = Self.wobbleLeqDB
            #expect(before.fits == [nil])

            // The fit: biases 3, −1 and 0 with equal evidence, mean 2/3, so (by hand) the offsets
            // are −7/3, +5/3 and +2/3; every venue is queued.
            let applied = try #require(try await calibrator.refit())
            #expect(applied.changedModels == ["Loud", "Plain", "Quiet"])
            #expect(applied.queuedVenues == 12)
            let models = Dictionary(
                uniqueKeysWithValues: try await calibrator.calibrations.models().map { ($0.model, $0) })
            for (model, expected) in [("Loud", -7.0 / 3), ("Quiet", 5.0 / 3), ("Plain", 2.0 / 3)] {
                let calibration = try #require(models[model])
                #expect(calibration.inForce?.source == .crowd)
                #expect(abs((calibration.inForce?.offsetDB ?? 9) - expected) < 0.02, "\(model)")
                #expect(calibration.crowd?.checkins == 48)
                #expect(calibration.crowd?.status == .fitted)
                #expect(calibration.devices == 12)
            }
            try await drain(aggregator)
            // Every phone now reads room + 2/3 (and the wobble): so does every cell, each
            // recording the fit.
            let fitted = try await cellErrors(client, venues: venues)
            #expect(fitted.errors.allSatisfy { abs($0 - wobble - 2.0 / 3) < 0.05 }, "\(fitted.errors.prefix(4))")
            #expect(fitted.fits == [applied.fitID])
            // The phones now agree: the cells' robust scale shrinks.
            #expect(try await meanScale(client) < scaleBefore - 0.5)
            let hourOffsets = try await client.query(
                """
                SELECT DISTINCT d.model, round(h.model_offset_db::numeric, 2)::float8
                FROM checkin_hours h JOIN devices d ON d.id = h.device_id
                """,
                logger: logger
            ).collect().map { try $0.decode((String, Double).self) }
            #expect(hourOffsets.count == 3, "one offset per model, recorded on every hour row")

            // A second fit on the same data changes nothing: no venue is queued.
            let again = try #require(try await calibrator.refit())
            #expect(again.changedModels.isEmpty && again.queuedVenues == 0)

            // A tone calibration says Plain reads 111 dB SPL at 0 dBFS: Plain's offset is 111 − 110
            // = +1, and its component moves with it by 1 − 2/3 = 1/3: Loud −2, Quiet +2; every
            // phone, and so every cell, reads room + 1.
            _ = try await calibrator.calibrations.addReference(
                model: "Plain", method: .tone, absoluteOffsetDB: 111, detail: #"{"frequencyHz": 1000}"#,
                createdBy: "test")
            let anchored = try #require(try await calibrator.refit())
            #expect(anchored.changedModels == ["Loud", "Plain", "Quiet"])
            let after = Dictionary(
                uniqueKeysWithValues: try await calibrator.calibrations.models().map { ($0.model, $0) })
            #expect(after["Plain"]?.inForce == ModelOffsetInForce(model: "Plain", offsetDB: 1, source: .reference))
            #expect(abs((after["Loud"]?.inForce?.offsetDB ?? 9) - -2) < 0.02)
            #expect(abs((after["Quiet"]?.inForce?.offsetDB ?? 9) - 2) < 0.02)
            #expect(after["Loud"]?.crowd?.anchored == true)
            #expect(after["Plain"]?.references.count == 1)
            try await drain(aggregator)
            #expect(try await cellErrors(client, venues: venues).errors.allSatisfy { abs($0 - wobble - 1) < 0.05 })

            // An admin's override of Quiet to 0 wins; undoing it gives the crowd's back.
            try await calibrator.calibrations.setOverride(model: "Quiet", offsetDB: 0, note: "test", setBy: "admin")
            let overridden = try #require(try await calibrator.refit())
            #expect(overridden.changedModels == ["Quiet"])
            let quiet = try await calibrator.calibrations.models().first { $0.model == "Quiet" }
            #expect(quiet?.inForce == ModelOffsetInForce(model: "Quiet", offsetDB: 0, source: .override))
            #expect(try await calibrator.calibrations.removeOverride(model: "Quiet"))
            #expect(try await calibrator.refit()?.changedModels == ["Quiet"])
        }
    }

    @Test("a model seen alone, or too rarely, gets no offset")
    func tooLittleEvidence() async throws {
        try await withTestDatabase { client, _ in
            let checkins = CheckinRepository(client: client, logger: logger)
            // Two models meet in three cells only: 3 co-located check-ins each, under the 10 needed.
            for hour in 10...12 {
                for (model, bias) in [("A", 4.0), ("B", 0.0)] {
                    var submission = SubmissionFixture.submission(
                        venue: "few", timezone: nil, device: "\(model)-phone", levelDBFS: -40 + bias,
                        start: Self.wednesday.addingTimeInterval(Double(hour - 10) * 3_600 + 300), seconds: 120)
                    submission.deviceModel = model
                    _ = try await checkins.ingest(submission, maxDistanceMetres: 250)
                }
            }
            let aggregator = Aggregator(client: client, logger: logger)
            try await drain(aggregator)
            let calibrator = Calibrator(client: client, referenceOffsetDB: 110, logger: logger)
            let applied = try #require(try await calibrator.refit())
            #expect(applied.changedModels.isEmpty && applied.queuedVenues == 0)
            for model in try await calibrator.calibrations.models() {
                #expect(model.crowd?.status == .insufficientEvidence)
                #expect(model.crowd?.checkins == 3)
                #expect(model.inForce == nil)
            }
        }
    }
}
