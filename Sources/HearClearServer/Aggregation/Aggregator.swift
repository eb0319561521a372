import Foundation
import HearClearStore
import Logging
import LoudnessCore
import Metrics
import PostgresNIO

/// Re-judges one venue at a time: loads its check-ins, runs ``VenueJudge`` and rewrites the
/// check-ins' judgements, their `checkin_hours` rows and the venue's cells, in the one
/// transaction ``AggregationQueue`` holds with the venue locked.
public struct Aggregator: Sendable {
    let queue: AggregationQueue
    let repository: AggregationRepository
    let judge: VenueJudge
    let logger: Logger

    /// Time to re-judge one venue (load, judge, write), and venues re-judged.
    static let durations = Metrics.Timer(label: "hearclear_aggregation_duration")
    static let venues = Counter(label: "hearclear_aggregations_total")

    public init(client: PostgresClient, logger: Logger, judge: VenueJudge = VenueJudge()) {
        self.queue = AggregationQueue(client: client, logger: logger)
        self.repository = AggregationRepository(logger: logger)
        self.judge = judge
        self.logger = logger
    }

    /// Takes the oldest queued venue no other worker holds (not in `skipping`) and recomputes it.
    public func processNext(skipping: Set<Int64> = []) async throws -> AggregationQueue.Outcome {
        try await queue.processNext(skipping: skipping) { venueID, connection in
            try await recompute(venueID: venueID, on: connection)
        }
    }

    /// Recomputes one venue now (waiting if a worker holds it), queued or not.
    public func recompute(venueID: Int64) async throws {
        try await queue.process(venueID: venueID) { venueID, connection in
            try await recompute(venueID: venueID, on: connection)
        }
    }

    private func recompute(venueID: Int64, on connection: PostgresConnection) async throws {
        let started = ContinuousClock.now
        guard let input = try await repository.load(venueID: venueID, on: connection) else { return }
        let result = Self.result(for: input, judge: judge)
        try await repository.write(result, on: connection)
        Self.durations.record(duration: ContinuousClock.now - started)
        Self.venues.increment()
        logger.debug(
            "venue aggregated",
            metadata: [
                "venue": "\(input.venueExternalID)", "checkins": "\(input.checkins.count)",
                "cells": "\(result.cells.count)", "duration": "\(ContinuousClock.now - started)",
            ])
    }

    /// The pure part: the judgement of a loaded venue, as rows to store.
    public static func result(for input: AggregationInput, judge: VenueJudge = VenueJudge()) -> AggregationResult {
        let clock = input.timezone.flatMap(VenueClock.init(timeZoneIdentifier:))
        var prepared: [(AggregationInput.Checkin, VenueCheckin)] = []
        var judgements: [AggregationResult.Judgement] = []
        for checkin in input.checkins {
            if let venueCheckin = Self.venueCheckin(checkin, clock: clock) {
                prepared.append((checkin, venueCheckin))
            } else {
                judgements.append(
                    .init(
                        checkinID: checkin.id, status: CheckinStatus.excluded.rawValue, reasons: ["invalid_samples"],
                        levelDBFS: nil, validSeconds: 0))
            }
        }
        let judged = judge.judge(prepared.map(\.1))
        var hours: [AggregationResult.Hour] = []
        for ((stored, venueCheckin), judgement) in zip(prepared, judged.checkins) {
            judgements.append(
                .init(
                    checkinID: stored.id, status: judgement.status.rawValue, reasons: judgement.reasons,
                    levelDBFS: judgement.levelDBFS, validSeconds: judgement.validSeconds))
            for hour in judgement.hours {
                let statistics = hour.statistics
                hours.append(
                    .init(
                        checkinID: stored.id, deviceKey: stored.deviceKey, weekday: statistics.localHour.weekday,
                        hour: statistics.localHour.hour, leqDBFS: statistics.leqDBFS, l10DBFS: statistics.l10DBFS,
                        l50DBFS: statistics.l50DBFS, l90DBFS: statistics.l90DBFS, maxPeakDBFS: statistics.maxPeakDBFS,
                        validSeconds: statistics.validSeconds, modelOffsetDB: venueCheckin.modelOffsetDB,
                        counted: hour.counted, outlier: hour.isOutlier, modifiedZ: hour.modifiedZ,
                        residualDB: hour.residualDB, otherDevices: hour.otherDeviceCount))
            }
        }
        let cells = judged.cells.sorted { $0.key < $1.key }.map { hour, estimate in
            StoredCell(
                weekday: hour.weekday, hour: hour.hour, levelDBFS: estimate.levelDB,
                rangeLowDBFS: estimate.rangeDB.lowerBound, rangeHighDBFS: estimate.rangeDB.upperBound,
                scaleDB: estimate.scaleDB, checkins: estimate.includedCheckinCount, devices: estimate.deviceCount,
                confidence: estimate.confidence.rawValue)
        }
        return AggregationResult(venueID: input.venueID, judgements: judgements, hours: hours, cells: cells)
    }

    /// The check-in as the judge sees it; `nil` when its stored arrays do not line up.
    static func venueCheckin(_ checkin: AggregationInput.Checkin, clock: VenueClock?) -> VenueCheckin? {
        let offsets = checkin.offsetsSeconds.map(Double.init)
        guard
            let samples = try? SessionSamples(
                offsetsSeconds: offsets, averageDBFS: checkin.averageDBFS.map(Double.init),
                peakDBFS: checkin.peakDBFS.map(Double.init))
        else { return nil }
        let localHours = VenueClock.localHours(
            start: checkin.startedAt, offsetsSeconds: offsets,
            utcOffsetsMinutes: checkin.utcOffsetsMinutes.map(Int.init),
            venueClock: clock)
        var reasons = checkin.receiptReasons
        if checkin.deviceExcluded { reasons.append(JudgementReason.deviceExcluded) }
        if checkin.adminDecision == .exclude { reasons.append(JudgementReason.adminExcluded) }
        return try? VenueCheckin(
            id: checkin.id.uuidString, deviceID: String(checkin.deviceKey), samples: samples, localHours: localHours,
            modelOffsetDB: checkin.modelOffsetDB, exclusionReasons: reasons,
            forcedInclusion: checkin.adminDecision == .include)
    }
}
