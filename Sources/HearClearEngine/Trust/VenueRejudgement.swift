import Foundation
import HearClearModel
import HearClearStore
import Logging
import LoudnessCore
import PostgresNIO

/// A venue judged again in memory, as the aggregator would judge it now, keeping what the stored
/// rows do not hold: the evidence of its change in force and what each check-in weighed
/// (docs/ARCHITECTURE.md, "What a check-in weighs"). Nothing is written.
public struct VenueRejudgement: Sendable {
    /// One judged check-in: what it weighed and what it was weighed from.
    public struct Checkin: Sendable, Equatable {
        public var id: UUID
        public var startedAt: Date
        /// Its device's trust (`device_trust`; the floor without a row).
        public var deviceTrust: Double
        /// The offset in force at its time (model or OS version, plus its device's), dB.
        public var offsetDB: Double
        public var weight: CheckinWeight
    }

    /// The venue's changes as the judgement now sees them, oldest first.
    public var changes: [VenueChange]
    /// The residuals of the change in force (of the latest check-ins when none).
    public var evidence: [ChangeResidual]
    /// Every check-in the judge saw, in time order.
    public var checkins: [Checkin]
    /// The venue's reference trust: its check-ins' device trust over their relative trust.
    public var referenceTrust: Double?

    /// The judged check-in with this id; nil when the judge did not see it.
    public func checkin(id: UUID) -> Checkin? { checkins.first { $0.id == id } }
}

/// Judges venues again in memory for the admin's pages (``VenueRejudgement``).
public struct VenueRejudging: Sendable {
    let client: PostgresClient
    let repository: AggregationRepository
    let judge: VenueJudge

    init(client: PostgresClient, logger: Logger, judge: VenueJudge = VenueJudge()) {
        self.client = client
        repository = AggregationRepository(logger: logger)
        self.judge = judge
    }

    /// The venue with key `venueID` judged again now, with its evidence; nil when there is no such
    /// venue. Reads what the aggregator reads; check-ins not cleaned yet are cleaned in memory.
    public func rejudge(venueID: Int64) async throws -> VenueRejudgement? {
        let read = try await client.withConnection { connection -> (AggregationInput, [[Double?]])? in
            let ids = [venueID]
            guard let header = try await repository.headers(venueIDs: ids, on: connection)[venueID] else { return nil }
            var input = AggregationInput(
                venueID: venueID, timezone: header.timezone,
                checkins: try await repository.checkins(venueIDs: ids, on: connection)[venueID] ?? [])
            input.changes = try await repository.changes(venueIDs: ids, on: connection)[venueID] ?? []
            input.campaigns = try await repository.campaigns(venueIDs: ids, on: connection)[venueID] ?? []
            let neighbours = try await repository.neighbourLevels(venueIDs: ids, on: connection)[venueID] ?? []
            return (input, neighbours)
        }
        guard let read else { return nil }
        return Self.rejudgement(of: read.0, judge: judge, neighbours: read.1)
    }

    /// The pure part: the check-ins prepared as ``Aggregator/judgement(of:judge:neighbours:)``
    /// prepares them, judged with their evidence.
    static func rejudgement(of input: AggregationInput, judge: VenueJudge, neighbours: [[Double?]])
        -> VenueRejudgement
    {
        let clock = input.timezone.flatMap(VenueClock.init(timeZoneIdentifier:))
        let prepared = input.checkins.compactMap { checkin in
            Aggregator.venueCheckin(checkin, clock: clock).map { (checkin, $0) }
        }
        let judged = judge.judge(
            prepared.map(\.1), neighbours: neighbours, changes: input.changes.map(\.known), evidence: true,
            ignoringCampaignDevices: input.dismissedCampaignDevices)
        var checkins: [VenueRejudgement.Checkin] = []
        var references: [Double] = []
        for (index, (checkin, _)) in prepared.enumerated() {
            let weight = index < judged.weights.count ? judged.weights[index] : CheckinWeight()
            let trust = checkin.deviceTrust ?? DeviceTrust.floor
            checkins.append(
                .init(
                    id: checkin.id, startedAt: checkin.startedAt, deviceTrust: trust, offsetDB: checkin.modelOffsetDB,
                    weight: weight))
            // Relative trust below 1 is the device's trust over the venue's reference.
            if weight.trust > 0, weight.trust < 1 { references.append(max(trust, DeviceTrust.floor) / weight.trust) }
        }
        return VenueRejudgement(
            changes: judged.changes, evidence: judged.changeEvidence,
            checkins: checkins.sorted { ($0.startedAt, $0.id.uuidString) < ($1.startedAt, $1.id.uuidString) },
            referenceTrust: references.first)
    }
}
