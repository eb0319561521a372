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

    /// The pure part: the judgement of a loaded venue, as the rows that change. Check-ins not
    /// cleaned yet are cleaned here; the others are judged from their stored cleaning.
    public static func result(for input: AggregationInput, judge: VenueJudge = VenueJudge()) -> AggregationResult {
        let clock = input.timezone.flatMap(VenueClock.init(timeZoneIdentifier:))
        var prepared: [(AggregationInput.Checkin, VenueCheckin)] = []
        var judgements: [AggregationResult.Judgement] = []
        for checkin in input.checkins {
            if let venueCheckin = Self.venueCheckin(checkin, clock: clock) {
                prepared.append((checkin, venueCheckin))
                continue
            }
            // Samples that cannot be read (arrays that do not line up): excluded once and for all.
            let judgement = AggregationResult.Judgement(
                checkinID: checkin.id, status: CheckinStatus.excluded.rawValue,
                reasons: [JudgementReason.invalidSamples], levelDBFS: nil, validSeconds: 0,
                cleanExclusion: JudgementReason.invalidSamples, newlyCleaned: checkin.raw != nil)
            if checkin.raw != nil || checkin.stored?.status != judgement.status
                || checkin.stored?.reasons != judgement.reasons
            {
                judgements.append(judgement)
            }
        }
        let judged = judge.judge(prepared.map(\.1))
        var newHours: [AggregationResult.Hour] = []
        var changedHours: [AggregationResult.Hour] = []
        for ((stored, venueCheckin), judgement) in zip(prepared, judged.checkins) {
            let hours = judgement.hours.map { hour in
                let statistics = hour.statistics
                return AggregationResult.Hour(
                    checkinID: stored.id, deviceKey: stored.deviceKey, weekday: statistics.localHour.weekday,
                    hour: statistics.localHour.hour, leqDBFS: statistics.leqDBFS, l10DBFS: statistics.l10DBFS,
                    l50DBFS: statistics.l50DBFS, l90DBFS: statistics.l90DBFS, maxPeakDBFS: statistics.maxPeakDBFS,
                    validSeconds: statistics.validSeconds, modelOffsetDB: venueCheckin.modelOffsetDB,
                    counted: hour.counted, outlier: hour.isOutlier, modifiedZ: hour.modifiedZ,
                    residualDB: hour.residualDB, otherDevices: hour.otherDeviceCount)
            }
            let row = AggregationResult.Judgement(
                checkinID: stored.id, status: judgement.status.rawValue, reasons: judgement.reasons,
                levelDBFS: judgement.levelDBFS, validSeconds: judgement.validSeconds,
                cleanExclusion: judgement.cleaning?.exclusion?.rawValue, newlyCleaned: stored.stored == nil)
            guard let previous = stored.stored else {
                judgements.append(row)
                newHours += hours
                continue
            }
            if previous.status != row.status || previous.reasons != row.reasons {
                judgements.append(row)
            }
            let before = Dictionary(
                previous.hours.map { (HourKey($0), $0) }, uniquingKeysWith: { first, _ in first })
            changedHours += hours.filter { hour in before[HourKey(hour)].map { !$0.sameJudgement(as: hour) } ?? true }
        }
        let cells = judged.cells.sorted { $0.key < $1.key }.map { hour, estimate in
            StoredCell(
                weekday: hour.weekday, hour: hour.hour, levelDBFS: estimate.levelDB,
                rangeLowDBFS: estimate.rangeDB.lowerBound, rangeHighDBFS: estimate.rangeDB.upperBound,
                scaleDB: estimate.scaleDB, checkins: estimate.includedCheckinCount, devices: estimate.deviceCount,
                confidence: estimate.confidence.rawValue)
        }
        return AggregationResult(
            venueID: input.venueID, judgements: judgements, newHours: newHours, changedHours: changedHours, cells: cells
        )
    }

    /// The check-in as the judge sees it: from its samples when not cleaned yet, else from its
    /// stored cleaning; `nil` when its samples cannot be read.
    static func venueCheckin(_ checkin: AggregationInput.Checkin, clock: VenueClock?) -> VenueCheckin? {
        var reasons = checkin.receiptReasons
        if checkin.deviceExcluded { reasons.append(JudgementReason.deviceExcluded) }
        if checkin.adminDecision == .exclude { reasons.append(JudgementReason.adminExcluded) }
        let forced = checkin.adminDecision == .include
        if let stored = checkin.stored {
            if stored.cleanExclusion == JudgementReason.invalidSamples { return nil }
            let summary = CleaningSummary(
                exclusion: stored.cleanExclusion.flatMap(CheckinExclusion.init(rawValue:)),
                validSeconds: stored.validSeconds, levelDBFS: stored.levelDBFS,
                hours: stored.hours.map { hour in
                    HourStatistics(
                        localHour: LocalHour(weekday: hour.weekday, hour: hour.hour), leqDBFS: hour.leqDBFS,
                        l10DBFS: hour.l10DBFS, l50DBFS: hour.l50DBFS, l90DBFS: hour.l90DBFS,
                        maxPeakDBFS: hour.maxPeakDBFS, validSeconds: hour.validSeconds)
                })
            return VenueCheckin(
                id: checkin.id.uuidString, deviceID: String(checkin.deviceKey), summary: summary,
                modelOffsetDB: checkin.modelOffsetDB, exclusionReasons: reasons, forcedInclusion: forced)
        }
        guard let raw = checkin.raw else { return nil }
        let offsets = raw.offsetsSeconds.map(Double.init)
        guard
            let samples = try? SessionSamples(
                offsetsSeconds: offsets, averageDBFS: raw.averageDBFS.map(Double.init),
                peakDBFS: raw.peakDBFS.map(Double.init))
        else { return nil }
        let localHours = VenueClock.localHours(
            start: raw.startedAt, offsetsSeconds: offsets, utcOffsetsMinutes: raw.utcOffsetsMinutes.map(Int.init),
            venueClock: clock)
        return try? VenueCheckin(
            id: checkin.id.uuidString, deviceID: String(checkin.deviceKey), samples: samples, localHours: localHours,
            modelOffsetDB: checkin.modelOffsetDB, exclusionReasons: reasons, forcedInclusion: forced)
    }
}

/// A check-in's hour row's key.
struct HourKey: Hashable {
    let checkin: UUID
    let weekday: Int
    let hour: Int

    init(_ row: AggregationResult.Hour) {
        checkin = row.checkinID
        weekday = row.weekday
        hour = row.hour
    }
}

extension AggregationResult.Hour {
    /// Same judged fields, compared at the `real` precision they are stored with.
    func sameJudgement(as other: Self) -> Bool {
        func same(_ a: Double?, _ b: Double?) -> Bool { a.map(Float.init) == b.map(Float.init) }
        return counted == other.counted && outlier == other.outlier && otherDevices == other.otherDevices
            && same(modifiedZ, other.modifiedZ) && same(residualDB, other.residualDB)
            && same(modelOffsetDB, other.modelOffsetDB)
    }
}
