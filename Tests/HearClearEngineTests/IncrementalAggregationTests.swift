import Foundation
import HearClearModel
import HearClearStore
import HearClearTestSupport
import LoudnessCore
import PostgresNIO
import Testing

@testable import HearClearEngine

/// The worker cleans each check-in once and re-judges a venue from the stored cleaning; the raw
/// samples are read again only when the cleaning is forgotten (recompute, time zone change).
@Suite("Incremental aggregation")
struct IncrementalAggregationTests {
    let logger = engineTestLogger
    /// 2026-11-18 10:00:00 UTC, a Wednesday: 21:00 in Sydney (+11:00), 10:00 in UTC.
    static let start = Date(timeIntervalSince1970: 1_794_996_000)

    func store(_ client: PostgresClient, venue: String, timezone: String?, devices: [String], level: Double)
        async throws -> Int64
    {
        let checkins = CheckinRepository(client: client, logger: logger)
        for (index, device) in devices.enumerated() {
            let submission = SubmissionFixture.submission(
                venue: venue, timezone: timezone, device: device, levelDBFS: level + Double(index) * 0.5,
                start: Self.start.addingTimeInterval(Double(index) * 400), seconds: 120)
            _ = try await checkins.ingest(submission, maxDistanceMetres: 250)
        }
        return try #require(try await AggregationQueue(client: client, logger: logger).venueKey(externalID: venue))
    }

    func cellLevels(_ client: PostgresClient, _ venueID: Int64) async throws -> [String: Float] {
        var levels: [String: Float] = [:]
        for cell in try await LoudnessRepository(client: client, logger: logger).cells(venueID: venueID) {
            levels["\(cell.weekday)-\(cell.hour)"] = Float(cell.levelDBFS)
        }
        return levels
    }

    @Test("a re-judgement uses the stored cleaning; recompute cleans the samples again")
    func storedCleaningIsReused() async throws {
        try await withTestDatabase { client, _ in
            let venue = try await store(
                client, venue: "incremental", timezone: "Australia/Sydney", devices: ["a", "b", "c"], level: -40)
            let aggregator = Aggregator(client: client, logger: logger)
            try await aggregator.recompute(venueID: venue)
            let first = try await cellLevels(client, venue)
            #expect(first.keys.sorted() == ["3-21"], "Wednesday 21:00 in Sydney")
            #expect(try await client.count("checkins", where: "cleaned_at IS NOT NULL") == 3)

            // Raw samples changed behind the worker's back: a plain re-judgement does not read them.
            let changed = SampleSeries(
                offsetsSeconds: (0..<120).map { $0 }, averageDBFS: (0..<120).map { Float(-10 + Double($0 % 3) * 0.5) },
                peakDBFS: Array(repeating: 0, count: 120))
            try await client.query("UPDATE checkins SET samples = \(try changed.column)")
            try await aggregator.recompute(venueID: venue)
            #expect(try await cellLevels(client, venue) == first)

            // After forgetting the cleaning (what `hearclear recompute` does) they are read again.
            try await AggregationQueue(client: client, logger: logger).forgetCleaning(venueID: venue)
            try await aggregator.recompute(venueID: venue)
            let recleaned = try await cellLevels(client, venue)
            #expect(recleaned.keys.sorted() == ["3-21"])
            // python3: 10*math.log10(statistics.mean(10**(x/10) for x in [-10, -9.5, -9])) == -9.480832944972464
            #expect(abs((recleaned["3-21"] ?? 0) - -9.4808) < 0.001)
        }
    }

    @Test("a re-judgement with nothing new writes no check-in")
    func unchangedVenueWritesNothing() async throws {
        try await withTestDatabase { client, _ in
            let venue = try await store(
                client, venue: "quiet-writes", timezone: nil, devices: ["a", "b", "c", "d"], level: -35)
            let aggregator = Aggregator(client: client, logger: logger)
            try await aggregator.recompute(venueID: venue)
            try await client.query("UPDATE checkins SET judged_at = '2000-01-01'")

            try await aggregator.recompute(venueID: venue)

            #expect(try await client.count("checkins", where: "judged_at = '2000-01-01'") == 4)
            #expect(try await client.count("checkin_hours") == 4)
        }
    }

    @Test("changing a venue's time zone re-buckets its check-ins by the new local hour")
    func timeZoneChangeRebuckets() async throws {
        try await withTestDatabase { client, _ in
            let venue = try await store(client, venue: "moved", timezone: "UTC", devices: ["a", "b"], level: -30)
            let aggregator = Aggregator(client: client, logger: logger)
            try await aggregator.recompute(venueID: venue)
            #expect(try await cellLevels(client, venue).keys.sorted() == ["3-10"])

            _ = try await VenueRepository(client: client, logger: logger).upsert(
                externalID: "moved",
                details: VenueDetails(name: "Moved", latitude: 0, longitude: 0, timezone: "Australia/Sydney"))
            #expect(try await client.count("checkins", where: "cleaned_at IS NULL") == 2)
            #expect(try await client.count("aggregation_queue", where: "venue_id = \(venue)") >= 1)
            try await aggregator.recompute(venueID: venue)

            #expect(try await cellLevels(client, venue).keys.sorted() == ["3-21"])
            #expect(try await client.count("checkin_hours", where: "hour = 10") == 0, "old rows replaced")
        }
    }

    @Test("renaming a venue without changing its zone keeps the stored cleaning")
    func renameKeepsCleaning() async throws {
        try await withTestDatabase { client, _ in
            let venue = try await store(client, venue: "renamed", timezone: "UTC", devices: ["a"], level: -30)
            try await Aggregator(client: client, logger: logger).recompute(venueID: venue)

            _ = try await VenueRepository(client: client, logger: logger).upsert(
                externalID: "renamed",
                details: VenueDetails(name: "New name", latitude: 0, longitude: 0, timezone: "UTC"))

            #expect(try await client.count("checkins", where: "cleaned_at IS NULL") == 0)
        }
    }

    /// One check-in from each device, from `start` on, 150 s apart (all in one hour).
    func ingest(_ client: PostgresClient, venue: String, devices: [String], level: Double, from start: Date)
        async throws
    {
        let checkins = CheckinRepository(client: client, logger: logger)
        for (index, device) in devices.enumerated() {
            let submission = SubmissionFixture.submission(
                venue: venue, timezone: "UTC", device: device, levelDBFS: level + Double(index % 3) * 0.5,
                start: start.addingTimeInterval(Double(index) * 150), seconds: 120)
            _ = try await checkins.ingest(submission, maxDistanceMetres: 250)
        }
    }

    /// Drains the queue with `aggregator`.
    func drain(_ aggregator: Aggregator) async throws {
        while !(try await aggregator.processNext(limit: 8).isEmpty) {}
    }

    /// A venue with one check-in from each of `devices` devices at -40 dBFS, judged by `worker`
    /// (which then remembers it); returns its key.
    func judgedVenue(_ client: PostgresClient, named venue: String, devices: Int, by worker: Aggregator)
        async throws -> Int64
    {
        try await ingest(
            client, venue: venue, devices: (0..<devices).map { "device-\($0)" }, level: -40, from: Self.start)
        let key = try #require(try await AggregationQueue(client: client, logger: logger).venueKey(externalID: venue))
        try await drain(worker)
        return key
    }

    @Test("with the venue in memory only new check-ins are read, and what is written is what a full read writes")
    func memoryReadsOnlyNewCheckins() async throws {
        try await withTestDatabase { client, _ in
            let worker = Aggregator(client: client, logger: logger)
            let venue = try await judgedVenue(client, named: "remembered", devices: 8, by: worker)
            #expect(worker.memorySize == (venues: 1, checkins: 8))

            // New check-ins, one of them junk, in rounds, each judged from memory plus what is new.
            for round in 1...3 {
                try await ingest(
                    client, venue: "remembered", devices: ["device-\(round)", "junk"], level: round == 2 ? -10 : -39,
                    from: Self.start.addingTimeInterval(Double(round) * 60))
                try await drain(worker)
            }
            #expect(worker.memorySize == (venues: 1, checkins: 14))
            let remembered = try await JudgementSnapshot.of(venue, on: client)

            // A full read by a worker with no memory finds nothing to change.
            try await Aggregator(client: client, logger: logger, memoryCapacity: 0).recompute(venueID: venue)
            #expect(try await JudgementSnapshot.of(venue, on: client) == remembered)
        }
    }

    @Test("a venue judged from memory does not read what changed behind the worker's back; a full read does")
    func memoryIsNotReread() async throws {
        try await withTestDatabase { client, _ in
            let worker = Aggregator(client: client, logger: logger)
            let venue = try await judgedVenue(client, named: "unread", devices: 6, by: worker)
            let before = try #require(try await cellLevels(client, venue)["3-10"])

            // Stored hours changed behind the worker's back (no queue entry, no new version).
            try await client.query("UPDATE checkin_hours SET leq_dbfs = leq_dbfs + 6")
            try await ingest(
                client, venue: "unread", devices: ["device-9"], level: -40, from: Self.start.addingTimeInterval(900))
            try await drain(worker)
            let fromMemory = try #require(try await cellLevels(client, venue)["3-10"])
            try await Aggregator(client: client, logger: logger, memoryCapacity: 0).recompute(venueID: venue)
            let fromDatabase = try #require(try await cellLevels(client, venue)["3-10"])

            #expect(abs(fromMemory - before) < 1, "judged from memory: the +6 dB is not seen")
            #expect(fromDatabase - before > 4, "read in full: the +6 dB is seen")
        }
    }

    @Test("another writer's judgement (a newer version) makes the worker read the venue in full")
    func anotherWriterInvalidatesMemory() async throws {
        try await withTestDatabase { client, _ in
            let worker = Aggregator(client: client, logger: logger)
            let venue = try await judgedVenue(client, named: "shared", devices: 6, by: worker)
            let before = try #require(try await cellLevels(client, venue)["3-10"])

            // Another process re-judges the venue after its stored hours changed.
            try await client.query("UPDATE checkin_hours SET leq_dbfs = leq_dbfs + 6")
            try await Aggregator(client: client, logger: logger, memoryCapacity: 0).recompute(venueID: venue)
            try await ingest(
                client, venue: "shared", devices: ["device-7"], level: -34, from: Self.start.addingTimeInterval(1200))
            try await drain(worker)

            let after = try #require(try await cellLevels(client, venue)["3-10"])
            #expect(after - before > 4, "the other writer's +6 dB stays: the worker read the venue in full")
            #expect(try await client.count("checkins", where: "status = 'included'") == 7)
        }
    }
}
