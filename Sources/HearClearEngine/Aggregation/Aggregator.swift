import Foundation
import HearClearModel
import HearClearStore
import Logging
import LoudnessCore
import Metrics
import PostgresNIO

/// Re-judges venues in batches: reads their check-ins, runs ``VenueJudge`` on each and rewrites
/// the check-ins' judgements, their `checkin_hours` rows and the venues' cells, in the one
/// transaction ``AggregationQueue`` holds with the venues locked.
///
/// A venue judged before by this process is held in memory (``VenueStateCache``) as it was
/// stored; when only check-ins were added since (every queue entry from ingest), just those are
/// read. Otherwise, or when another process wrote the venue since, the venue is read in full. Both
/// judge exactly the same check-ins with the same stored cleaning, so they write the same thing.
public struct Aggregator: Sendable {
    let queue: AggregationQueue
    let repository: AggregationRepository
    let judge: VenueJudge
    let logger: Logger
    let memory: VenueStateCache

    /// Default ``init(client:logger:judge:memoryCapacity:)`` capacity: check-ins held in memory
    /// over all venues (a few hundred bytes each).
    public static let defaultMemoryCapacity = 200_000

    /// Time to take, judge and write one batch of venues, and venues re-judged (read in full or
    /// from memory).
    static let durations = Metrics.Timer(label: "hearclear_aggregation_batch_duration")
    static let fullVenues = Counter(label: "hearclear_aggregations_total", dimensions: [("read", "full")])
    static let rememberedVenues = Counter(label: "hearclear_aggregations_total", dimensions: [("read", "new")])
    /// `checkin_hours` rows written: of newly cleaned check-ins, and rewritten (``AggregationResult/Hour/needsRewrite(from:)``).
    static let newHourRows = Counter(label: "hearclear_aggregation_hour_rows_total", dimensions: [("write", "new")])
    static let rewrittenHourRows = Counter(
        label: "hearclear_aggregation_hour_rows_total", dimensions: [("write", "rewritten")])

    /// `memoryCapacity`: most check-ins held in memory over all venues (0: none; for one-off
    /// work such as the admin's recompute).
    public init(
        client: PostgresClient, logger: Logger, judge: VenueJudge = VenueJudge(),
        memoryCapacity: Int = Aggregator.defaultMemoryCapacity
    ) {
        self.queue = AggregationQueue(client: client, logger: logger)
        self.repository = AggregationRepository(logger: logger)
        self.judge = judge
        self.logger = logger
        self.memory = VenueStateCache(capacity: memoryCapacity)
    }

    /// Takes up to `limit` queued venues no other worker holds (not in `skipping`), oldest entry
    /// first, and re-judges them in one transaction.
    public func processNext(limit: Int = 1, skipping: Set<Int64> = []) async throws -> AggregationBatch {
        let (batch, judged) = try await queue.processNext(limit: limit, skipping: skipping) { claims, connection in
            try await recompute(claims, on: connection)
        }
        remember(judged ?? [])
        return batch
    }

    /// Recomputes one venue now, read in full (waiting if a worker holds it), queued or not.
    public func recompute(venueID: Int64) async throws {
        remember(
            try await queue.process(venueID: venueID) { claims, connection in
                try await recompute(claims, on: connection)
            })
    }

    /// Venues and check-ins held in memory.
    public var memorySize: (venues: Int, checkins: Int) { memory.size }

    /// A venue as written, at the judgement version the write produced.
    struct Written: Sendable {
        let version: Int64
        let state: AggregationInput
    }

    /// Only once the transaction has committed is what it wrote the venues' stored state.
    private func remember(_ written: [Written]) {
        for venue in written { memory.store(venue.state, version: venue.version) }
    }

    /// The claimed venues held in memory at their stored version (those whose claim adds only
    /// check-ins), with those check-ins, and the others, to be read in full.
    private func rememberedOrUnknown(_ claims: [AggregationQueue.Claim], headers: [Int64: AggregationRepository.Header])
        -> (remembered: [Int64: AggregationInput], newCheckins: [AggregationQueue.QueuedCheckin], unknown: [Int64])
    {
        var remembered: [Int64: AggregationInput] = [:]
        var newCheckins: [AggregationQueue.QueuedCheckin] = []
        var unknown: [Int64] = []
        for claim in claims {
            guard let header = headers[claim.venueID] else { continue }
            if claim.checkinsOnly, let state = memory.state(venueID: claim.venueID, version: header.judgementVersion) {
                remembered[claim.venueID] = state
                newCheckins += claim.newCheckins
            } else {
                unknown.append(claim.venueID)
            }
        }
        return (remembered, newCheckins, unknown)
    }

    private func recompute(_ claims: [AggregationQueue.Claim], on connection: PostgresConnection) async throws
        -> [Written]
    {
        let started = ContinuousClock.now
        let venueIDs = claims.map(\.venueID)
        let headers = try await repository.headers(venueIDs: venueIDs, on: connection)
        let (remembered, newCheckins, unknown) = rememberedOrUnknown(claims, headers: headers)
        let added = try await repository.checkins(
            venueIDs: Array(remembered.keys), only: newCheckins, on: connection)
        let loaded = try await repository.checkins(venueIDs: unknown, on: connection)
        let neighbours = try await repository.neighbourLevels(venueIDs: venueIDs, on: connection)
        // Read afresh every time: an admin's dismissal writes them without a judgement.
        let changes = try await repository.changes(venueIDs: venueIDs, on: connection)
        let campaigns = try await repository.campaigns(venueIDs: venueIDs, on: connection)

        var results: [AggregationResult] = []
        var states: [AggregationInput] = []
        for venueID in venueIDs {
            guard let header = headers[venueID] else { continue }
            var input: AggregationInput
            if let state = remembered[venueID] {
                input = state.adding(added[venueID] ?? [])
                input.timezone = header.timezone
            } else {
                input = AggregationInput(
                    venueID: venueID, timezone: header.timezone,
                    checkins: loaded[venueID] ?? [])
            }
            input.changes = changes[venueID] ?? []
            input.campaigns = campaigns[venueID] ?? []
            let (result, stored) = Self.judgement(of: input, judge: judge, neighbours: neighbours[venueID] ?? [])
            results.append(result)
            states.append(stored)
        }
        let versions = try await repository.write(results, on: connection)
        Self.durations.record(duration: ContinuousClock.now - started)
        Self.fullVenues.increment(by: unknown.count)
        Self.rememberedVenues.increment(by: remembered.count)
        Self.newHourRows.increment(by: results.reduce(0) { $0 + $1.newHours.count })
        Self.rewrittenHourRows.increment(by: results.reduce(0) { $0 + $1.changedHours.count })
        logger.debug(
            "venues aggregated",
            metadata: [
                "venues": "\(results.count)", "readInFull": "\(unknown.count)",
                "newCheckins": "\(added.values.reduce(0) { $0 + $1.count })",
                "duration": "\(ContinuousClock.now - started)",
            ])
        return states.compactMap { state in
            versions[state.venueID].map { Written(version: $0, state: state) }
        }
    }

    /// The pure part: the judgement of a venue, as the rows that change, and the venue as it is
    /// stored once they are written (what a full read would return). Check-ins not cleaned yet are
    /// cleaned here; the others are judged from their stored cleaning. `neighbours`: the measured
    /// levels of venues of its category nearby (``AggregationRepository/neighbourLevels(venueIDs:on:)``).
    public static func judgement(
        of input: AggregationInput, judge: VenueJudge = VenueJudge(), neighbours: [[Double?]] = []
    )
        -> (result: AggregationResult, stored: AggregationInput)
    {
        let clock = input.timezone.flatMap(VenueClock.init(timeZoneIdentifier:))
        // The venue as stored after the write, updated in place (check-ins are large to copy).
        var after = input
        var rows = Rows()
        let prepared = Self.prepared(input, clock: clock, rows: &rows, after: &after)
        let judged = judge.judge(
            prepared.map(\.checkin), neighbours: neighbours, changes: input.changes.map(\.known),
            ignoringCampaignDevices: input.dismissedCampaignDevices)
        for ((index, venueCheckin), judgement) in zip(prepared, judged.checkins) {
            after.checkins[index] = rows.add(judgement, of: input.checkins[index], venueCheckin: venueCheckin)
        }
        let cells = Self.cells(of: judged)
        let storedChanges = Self.storedChanges(judged.changes, before: input.changes)
        let result = AggregationResult(
            venueID: input.venueID, judgements: rows.judgements, newHours: rows.newHours,
            changedHours: rows.changedHours, cells: Self.cellWrite(cells, before: input.storedCells),
            lastReceivedAt: input.checkins.map(\.receivedAt).max(),
            changes: storedChanges == input.changes ? nil : storedChanges,
            campaign: Self.campaignWrite(judged.campaign, venueID: input.venueID, stored: input.campaigns))
        after.storedCells = cells.map(\.asStored)
        after.changes = storedChanges
        return (result, after)
    }

    /// The rows a judgement writes: check-ins whose judgement changed, hours new and rewritten.
    struct Rows {
        var judgements: [AggregationResult.Judgement] = []
        var newHours: [AggregationResult.Hour] = []
        var changedHours: [AggregationResult.Hour] = []

        /// Adds what `judgement` changes of `checkin`'s rows (all of them when it was not judged
        /// before, else those that differ from what is stored) and returns the check-in as stored
        /// after the write.
        mutating func add(
            _ judgement: CheckinJudgement, of checkin: AggregationInput.Checkin, venueCheckin: VenueCheckin
        ) -> AggregationInput.Checkin {
            let hours = judgement.hours.map { Aggregator.hourRow($0, of: checkin, venueCheckin: venueCheckin) }
            let row = AggregationResult.Judgement(
                checkinID: checkin.id, startedAt: checkin.startedAt, status: judgement.status,
                reasons: judgement.reasons,
                levelDBFS: judgement.levelDBFS, validSeconds: judgement.validSeconds,
                cleanExclusion: judgement.cleaning?.exclusion.map(JudgementReason.init),
                newlyCleaned: checkin.stored == nil)
            var storedHours: [AggregationResult.Hour]
            if let previous = checkin.stored {
                if previous.status != row.status || previous.reasons != row.reasons {
                    judgements.append(row)
                }
                storedHours = previous.hours
                for hour in hours {
                    let position = storedHours.firstIndex { $0.weekday == hour.weekday && $0.hour == hour.hour }
                    guard let position else {
                        changedHours.append(hour)  // no stored row to compare with: write it
                        continue
                    }
                    if hour.needsRewrite(from: storedHours[position]) {
                        changedHours.append(hour)
                        storedHours[position] = hour.asStored
                    }
                }
            } else {
                judgements.append(row)
                newHours += hours
                storedHours = hours.map(\.asStored)
            }
            var after = checkin
            after.raw = nil
            after.stored = AggregationInput.Stored(
                cleanExclusion: checkin.stored?.cleanExclusion ?? row.cleanExclusion,
                validSeconds: checkin.stored?.validSeconds ?? row.validSeconds,
                levelDBFS: checkin.stored?.levelDBFS ?? row.levelDBFS.map { Double(Float($0)) },
                status: row.status, reasons: row.reasons, hours: storedHours)
            return after
        }
    }

    /// The check-ins the judge can read, with their index in `input`; one whose samples cannot be
    /// read (arrays that do not line up) is excluded here once and for all.
    private static func prepared(
        _ input: AggregationInput, clock: VenueClock?, rows: inout Rows, after: inout AggregationInput
    ) -> [(index: Int, checkin: VenueCheckin)] {
        var prepared: [(index: Int, checkin: VenueCheckin)] = []
        prepared.reserveCapacity(input.checkins.count)
        for (index, checkin) in input.checkins.enumerated() {
            if let venueCheckin = Self.venueCheckin(checkin, clock: clock) {
                prepared.append((index, venueCheckin))
                continue
            }
            let judgement = AggregationResult.Judgement(
                checkinID: checkin.id, startedAt: checkin.startedAt, status: .excluded,
                reasons: [JudgementReason.invalidSamples], levelDBFS: nil, validSeconds: 0,
                cleanExclusion: JudgementReason.invalidSamples, newlyCleaned: checkin.raw != nil)
            if checkin.raw != nil || checkin.stored?.status != judgement.status
                || checkin.stored?.reasons != judgement.reasons
            {
                rows.judgements.append(judgement)
            }
            if checkin.raw != nil || checkin.stored != nil {
                after.checkins[index].raw = nil
                after.checkins[index].stored = AggregationInput.Stored(
                    cleanExclusion: checkin.raw != nil ? judgement.cleanExclusion : checkin.stored?.cleanExclusion,
                    validSeconds: 0, levelDBFS: nil, status: judgement.status, reasons: judgement.reasons, hours: [])
            }
        }
        return prepared
    }

    /// One hour of a check-in's judgement as its row.
    static func hourRow(
        _ hour: HourJudgement, of checkin: AggregationInput.Checkin, venueCheckin: VenueCheckin
    ) -> AggregationResult.Hour {
        let statistics = hour.statistics
        return AggregationResult.Hour(
            checkinID: checkin.id, deviceKey: checkin.deviceKey, weekday: statistics.localHour.weekday,
            hour: statistics.localHour.hour, leqDBFS: statistics.leqDBFS, l10DBFS: statistics.l10DBFS,
            l50DBFS: statistics.l50DBFS, l90DBFS: statistics.l90DBFS, maxPeakDBFS: statistics.maxPeakDBFS,
            validSeconds: statistics.validSeconds, modelOffsetDB: venueCheckin.modelOffsetDB,
            counted: hour.counted, outlier: hour.isOutlier, modifiedZ: hour.modifiedZ,
            residualDB: hour.residualDB, otherDevices: hour.otherDeviceCount, character: statistics.character)
    }

    /// The venue's cells, measured and estimated, in order of position.
    private static func cells(of judged: VenueJudgement) -> [StoredCell] {
        let measured = judged.cells.map { hour, estimate in
            StoredCell(
                weekday: hour.weekday, hour: hour.hour, levelDBFS: estimate.levelDB,
                rangeLowDBFS: estimate.rangeDB.lowerBound, rangeHighDBFS: estimate.rangeDB.upperBound,
                scaleDB: estimate.scaleDB, checkins: estimate.includedCheckinCount, devices: estimate.deviceCount,
                confidence: estimate.confidence.rawValue, character: judged.characters[hour])
        }
        let estimated = judged.estimates.map { hour, estimate in
            StoredCell(
                weekday: hour.weekday, hour: hour.hour, levelDBFS: estimate.levelDB,
                rangeLowDBFS: estimate.rangeDB.lowerBound, rangeHighDBFS: estimate.rangeDB.upperBound,
                scaleDB: estimate.scaleDB, checkins: 0, devices: 0, confidence: estimate.confidence.rawValue,
                basis: estimate.basis)
        }
        return (measured + estimated).sorted { $0.position < $1.position }
    }

    /// The cells to write: those that differ from the stored ones and the stored ones gone, or all
    /// of them when the stored cells are not known.
    private static func cellWrite(_ cells: [StoredCell], before: [StoredCell]?) -> AggregationResult.CellWrite {
        guard let before else { return .replaceAll(cells) }
        let previous = Dictionary(before.map { ($0.position, $0) }, uniquingKeysWith: { first, _ in first })
        let current = Set(cells.map(\.position))
        return .changes(
            upserted: cells.filter { cell in previous[cell.position].map { !$0.sameEstimate(as: cell) } ?? true },
            removed: before.map(\.position).filter { !current.contains($0) })
    }

    /// What to write of the venue's open campaign: the one found when it differs from the open
    /// one stored, `.some(nil)` to close an open one no longer found, nil to leave it.
    static func campaignWrite(_ found: Campaign?, venueID: Int64, stored: [StoredCampaign]) -> StoredCampaign?? {
        let open = stored.first { $0.status == .open }
        guard let found else { return open == nil ? nil : .some(nil) }
        let row = StoredCampaign(found, venueID: venueID)
        if let open, open.sameFinding(as: row) { return nil }
        return .some(row)
    }

    /// The venue's changes as the judgement leaves them, as rows (a known one keeps when it was
    /// first detected and who dismissed it).
    static func storedChanges(_ changes: [VenueChange], before: [StoredVenueChange]) -> [StoredVenueChange] {
        let previous = Dictionary(
            before.map { ($0.changedAt.timeIntervalSince1970, $0) }, uniquingKeysWith: { first, _ in first })
        return changes.map { StoredVenueChange($0, previous: previous[$0.changedAt]) }
    }

    /// The check-in as the judge sees it (``venueCheckin(_:clock:)``), with when it was made and
    /// what is known of its device.
    static func venueCheckin(_ checkin: AggregationInput.Checkin, clock: VenueClock?) -> VenueCheckin? {
        guard var venueCheckin = cleanedOrRaw(checkin, clock: clock) else { return nil }
        venueCheckin.startedAt = checkin.startedAt.timeIntervalSince1970
        let trust = checkin.deviceTrust ?? DeviceTrust.floor
        venueCheckin.device = DeviceStanding(
            trust: trust, established: trust >= 1, checksInElsewhere: (checkin.deviceVenues ?? 1) > 1)
        return venueCheckin
    }

    /// The check-in as the judge sees it: from its samples when not cleaned yet, else from its
    /// stored cleaning; `nil` when its samples cannot be read.
    private static func cleanedOrRaw(_ checkin: AggregationInput.Checkin, clock: VenueClock?) -> VenueCheckin? {
        var reasons = checkin.receiptReasons
        if checkin.deviceExcluded { reasons.append(JudgementReason.deviceExcluded) }
        if checkin.adminDecision == .exclude { reasons.append(JudgementReason.adminExcluded) }
        let forced = checkin.adminDecision == .include
        if let stored = checkin.stored {
            if stored.cleanExclusion == JudgementReason.invalidSamples { return nil }
            let summary = CleaningSummary(
                exclusion: stored.cleanExclusion.flatMap { CheckinExclusion(rawValue: $0.rawValue) },
                validSeconds: stored.validSeconds, levelDBFS: stored.levelDBFS,
                hours: stored.hours.map { hour in
                    HourStatistics(
                        localHour: LocalHour(weekday: hour.weekday, hour: hour.hour), leqDBFS: hour.leqDBFS,
                        l10DBFS: hour.l10DBFS, l50DBFS: hour.l50DBFS, l90DBFS: hour.l90DBFS,
                        maxPeakDBFS: hour.maxPeakDBFS, validSeconds: hour.validSeconds, character: hour.character)
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
        let spectra: SpectralSamples?
        do {
            spectra = try SpectralSamples(
                count: samples.count, lceqDdB: raw.lceqDdB, bandIndexes: raw.bandIndexes, bandsDdB: raw.bandsDdB)
        } catch {
            return nil  // LCeq or bands that do not line up with the samples
        }
        let localHours = VenueClock.localHours(
            start: checkin.startedAt, offsetsSeconds: offsets, utcOffsetsMinutes: raw.utcOffsetsMinutes.map(Int.init),
            venueClock: clock)
        return try? VenueCheckin(
            id: checkin.id.uuidString, deviceID: String(checkin.deviceKey), samples: samples, localHours: localHours,
            modelOffsetDB: checkin.modelOffsetDB, exclusionReasons: reasons, forcedInclusion: forced, spectra: spectra,
            phoneClasses: raw.phoneClasses)
    }
}
