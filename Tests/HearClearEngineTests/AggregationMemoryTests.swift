import Foundation
import HearClearModel
import HearClearStore
import Testing

@testable import HearClearEngine

/// The worker's memory of venues (``VenueStateCache``) and the rule for rewriting a stored hour row.
@Suite("Aggregation memory")
struct AggregationMemoryTests {
    static func venue(_ id: Int64, checkins: Int) -> AggregationInput {
        let checkins = (0..<checkins).map { index in
            AggregationInput.Checkin(
                id: UUID(), startedAt: Date(timeIntervalSince1970: Double(index)),
                receivedAt: Date(timeIntervalSince1970: Double(index)), deviceKey: 1, deviceExcluded: false,
                modelOffsetDB: 0, receiptReasons: [], raw: nil, stored: nil)
        }
        return AggregationInput(venueID: id, timezone: nil, checkins: checkins)
    }

    @Test("a venue is remembered only at the version written; another version forgets it")
    func versions() {
        let memory = VenueStateCache(capacity: 100)
        memory.store(Self.venue(1, checkins: 3), version: 7)

        #expect(memory.state(venueID: 1, version: 7)?.checkins.count == 3)
        #expect(memory.state(venueID: 2, version: 7) == nil)
        #expect(memory.state(venueID: 1, version: 8) == nil)
        #expect(memory.state(venueID: 1, version: 7) == nil, "a stale entry is dropped")
        #expect(memory.size == (venues: 0, checkins: 0))
    }

    @Test("past capacity the least recently used venues are forgotten, down to 90 %")
    func leastRecentlyUsedGoFirst() {
        let memory = VenueStateCache(capacity: 100)
        for id in 1...4 { memory.store(Self.venue(Int64(id), checkins: 25), version: 1) }
        _ = memory.state(venueID: 1, version: 1)  // 2 is now the least recently used

        memory.store(Self.venue(5, checkins: 10), version: 1)  // 110 > 100: forget until ≤ 90
        #expect(memory.size == (venues: 4, checkins: 85))
        #expect(memory.state(venueID: 2, version: 1) == nil)

        memory.store(Self.venue(7, checkins: 30), version: 1)  // 115: 3 (25) goes, leaving 90
        #expect(memory.size == (venues: 4, checkins: 90))
        #expect(memory.state(venueID: 3, version: 1) == nil)
        #expect(memory.state(venueID: 4, version: 1) != nil)
        #expect(memory.state(venueID: 1, version: 1) != nil)
        #expect(memory.state(venueID: 5, version: 1) != nil)
        memory.store(Self.venue(6, checkins: 101), version: 1)
        #expect(memory.state(venueID: 6, version: 1) == nil, "a venue larger than the capacity is not held")
        #expect(VenueStateCache(capacity: 0).size == (venues: 0, checkins: 0))
    }

    static func hour(z: Double?, residual: Double?, others: Int, counted: Bool = true) -> AggregationResult.Hour {
        AggregationResult.Hour(
            checkinID: UUID(), deviceKey: 1, weekday: 1, hour: 20, leqDBFS: -40, l10DBFS: -38, l50DBFS: -40,
            l90DBFS: -43, maxPeakDBFS: -20, validSeconds: 120, modelOffsetDB: 0, counted: counted, outlier: false,
            modifiedZ: z, residualDB: residual, otherDevices: others)
    }

    @Test(
        "an hour row is rewritten when its judgement changes, its z-score moves by 0.25 (0.05 from |z| = 3) or its residual by 0.1 dB"
    )
    func rewriteRule() {
        let stored = Self.hour(z: 1.00, residual: 0.50, others: 3)

        #expect(!Self.hour(z: 1.24, residual: 0.59, others: 9).needsRewrite(from: stored))
        #expect(!Self.hour(z: 0.76, residual: 0.41, others: 1).needsRewrite(from: stored))
        #expect(Self.hour(z: 1.26, residual: 0.50, others: 3).needsRewrite(from: stored))
        #expect(Self.hour(z: 1.00, residual: 0.39, others: 3).needsRewrite(from: stored))
        #expect(Self.hour(z: nil, residual: 0.50, others: 3).needsRewrite(from: stored))
        #expect(Self.hour(z: 1.00, residual: 0.50, others: 0).needsRewrite(from: stored))
        #expect(Self.hour(z: 1.00, residual: 0.50, others: 3, counted: false).needsRewrite(from: stored))
        // Near the outlier threshold the admin reads the z-score: 0.05 is enough.
        let near = Self.hour(z: 3.40, residual: 0.50, others: 3)
        #expect(!Self.hour(z: 3.44, residual: 0.50, others: 3).needsRewrite(from: near))
        #expect(Self.hour(z: 3.46, residual: 0.50, others: 3).needsRewrite(from: near))
        #expect(
            Self.hour(z: 3.01, residual: 0.50, others: 3).needsRewrite(
                from: Self.hour(z: 2.90, residual: 0.50, others: 3)))
    }

    /// A check-in of 120 seconds at `level` (±0.6 dB within), 5 s after the previous one.
    static func raw(_ index: Int, level: Double, device: Int64) -> AggregationInput.Checkin {
        let start = Date(timeIntervalSince1970: 1_794_996_000 + Double(index) * 5)
        let averages = (0..<120).map { Float(level + Double(($0 * 7) % 5) * 0.3) }
        return AggregationInput.Checkin(
            id: UUID(), startedAt: start, receivedAt: start, deviceKey: device, deviceExcluded: false,
            modelOffsetDB: 0, receiptReasons: [],
            raw: .init(
                offsetsSeconds: (0..<120).map(Int32.init), utcOffsetsMinutes: [0],
                averageDBFS: averages, peakDBFS: averages.map { $0 + 10 }),
            stored: nil)
    }

    @Test("hour rows are rewritten when their judgement changes, and only a few when check-ins join a busy cell")
    func rewritesFollowTheJudgement() throws {
        // 300 check-ins of 300 devices within ±2 dB in one cell (a fixed spread, no randomness).
        let levels = (0..<309).map { -40 + Double(($0 * 37) % 41) / 10 - 2 }
        let first = Aggregator.judgement(
            of: AggregationInput(
                venueID: 1, timezone: "UTC",
                checkins: (0..<300).map { Self.raw($0, level: levels[$0], device: Int64($0)) }),
            judge: .init())
        #expect(first.result.newHours.count == 300)

        // Judged again with nothing new: nothing to write.
        let again = Aggregator.judgement(of: first.stored, judge: .init())
        #expect(again.result.judgements.isEmpty)
        #expect(again.result.changedHours.isEmpty)
        #expect(again.result.cells == .changes(upserted: [], removed: []))

        // Three check-ins join: their rows are new; of the 300 others, few move past the tolerance.
        var state = first.stored
        for round in 0..<3 {
            let added = (0..<3).map { 300 + round * 3 + $0 }.map {
                Self.raw($0, level: levels[$0], device: Int64(1000 + $0))
            }
            let next = Aggregator.judgement(of: state.adding(added), judge: .init())
            #expect(next.result.newHours.count == 3)
            #expect(next.result.changedHours.count < 30, "round \(round)")
            state = next.stored
        }

        // An excluded device: its check-in's row stops counting, and is rewritten to say so.
        let excludedIndex = try #require(state.checkins.firstIndex { $0.deviceKey == 7 })
        state.checkins[excludedIndex].deviceExcluded = true
        let excluded = Aggregator.judgement(of: state, judge: .init())
        let row = try #require(excluded.result.changedHours.first { $0.checkinID == state.checkins[excludedIndex].id })
        #expect(!row.counted)
        #expect(excluded.result.judgements.map(\.status) == [.excluded])
        #expect(excluded.stored.checkins[excludedIndex].stored?.hours.map(\.counted) == [false])
    }
}
