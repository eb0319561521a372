import Foundation
import HearClearStore
import Testing

@testable import HearClearServer

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
        return AggregationInput(venueID: id, venueExternalID: "v\(id)", timezone: nil, checkins: checkins)
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
}
