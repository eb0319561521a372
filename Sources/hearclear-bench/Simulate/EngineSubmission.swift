import Foundation
import HearClearCLI
import HearClearEngine
import HearClearModel

/// `simulate --engine`: every check-in straight into the engine (`engine.intake`, as the server
/// stores a v2 check-in, but of any age: the API refuses samples 14 days old), then the
/// aggregation queue drained here, so the city is judged before the command returns.
enum EngineSubmission {
    struct Outcome {
        var stored = 0
        var duplicates = 0
        var refusals: [String] = []
        var venuesJudged = 0
        var intake: Duration = .zero
        var judging: Duration = .zero
        /// Reports filed (`--reports`), and those already there from an earlier run.
        var reportsFiled = 0
        var reportsAlreadyThere = 0

        /// Counts one check-in's answer: stored, already there, or refused (with why).
        mutating func count(_ result: IngestOutcome?, refusal: String?) {
            switch result {
            case .created: stored += 1
            case .duplicate: duplicates += 1
            case .conflict(let id): refusals.append("\(id): another check-in has this id")
            case nil: refusals.append(refusal ?? "?")
            }
        }

        var summary: String {
            String(
                format: "stored %d check-ins (%d already there, %d refused) in %.1f s (%.0f a second); "
                    + "judged %d venue(s) in %.1f s",
                stored, duplicates, refusals.count, intake.seconds,
                Double(stored + duplicates) / max(intake.seconds, 0.001), venuesJudged, judging.seconds)
                + (reportsFiled + reportsAlreadyThere > 0
                    ? "; filed \(reportsFiled) report(s) (\(reportsAlreadyThere) already there)" : "")
        }
    }

    /// Stores and judges the city, then files `reports` (about the judged cells, as a phone's
    /// report through the API is kept beside what the server showed).
    static func submit(
        _ city: SimulatedCity, reports: [SimulatedReport] = [], database: ServerOptions, concurrency: Int
    ) async throws -> Outcome {
        let venues = Dictionary(uniqueKeysWithValues: city.venues.map { ($0.id, $0) })
        let (firsts, rest) = monthsFirst(city)
        return try await DatabaseSession.run(database) { engine, _ in
            var outcome = Outcome()
            let started = ContinuousClock.now
            let progress = ProgressBar(total: city.checkins.count, label: "check-ins")
            var done = 0
            func record(_ result: IngestOutcome?, _ refusal: String?) {
                done += 1
                progress.update(done)
                outcome.count(result, refusal: refusal)
            }
            func store(_ index: Int) throws -> Storing {
                let planned = city.checkins[index]
                guard let venue = venues[planned.truth.venue] else {
                    throw SimulationError("unknown venue \(planned.truth.venue)")
                }
                return storing(try submission(planned, venue: venue), id: planned.truth.id, engine: engine)
            }
            for index in firsts {
                let (result, refusal) = try await store(index)()
                record(result, refusal)
            }
            try await inParallel(rest, concurrency: concurrency, store: store, record: record)
            progress.finish(done)
            outcome.intake = started.duration(to: .now)
            let judging = ContinuousClock.now
            outcome.venuesJudged = try await drain(engine)
            outcome.judging = judging.duration(to: .now)
            try await file(reports, engine: engine, into: &outcome)
            return outcome
        }
    }

    /// The order check-ins are stored in: the first check-in of each UTC month alone, first (storing
    /// it makes its month's partition of `checkins`, "Check-ins by month", and two ingests making
    /// partitions at once were seen to deadlock, 40P01); the rest then go several at a time.
    private static func monthsFirst(_ city: SimulatedCity) -> (firsts: [Int], rest: [Int]) {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(secondsFromGMT: 0)!
        var months: Set<DateComponents> = []
        var firsts: [Int] = []
        var rest: [Int] = []
        for (index, planned) in city.checkins.enumerated() {
            if months.insert(calendar.dateComponents([.year, .month], from: planned.start)).inserted {
                firsts.append(index)
            } else {
                rest.append(index)
            }
        }
        return (firsts, rest)
    }

    /// Storing one check-in: what the intake answered, or the refusal in words.
    private typealias Storing = @Sendable () async throws -> (IngestOutcome?, String?)

    /// Stores `submission` through the engine's intake when called.
    private static func storing(_ submission: CheckinSubmission, id: String, engine: Engine) -> Storing {
        {
            do {
                return (try await engine.intake.submit(submission), nil)
            } catch let error as IngestError {
                return (nil, "\(id): \(error)")
            } catch {
                // The database's own errors hide their detail from `description`.
                throw SimulationError("check-in \(id): \(String(reflecting: error))")
            }
        }
    }

    /// Stores the check-ins `indexes` name, `concurrency` at a time, recording each answer as it comes.
    private static func inParallel(
        _ indexes: [Int], concurrency: Int, store: (Int) throws -> Storing,
        record: (IngestOutcome?, String?) -> Void
    ) async throws {
        try await withThrowingTaskGroup(of: (IngestOutcome?, String?).self) { group in
            var next = 0
            func schedule() throws {
                guard next < indexes.count else { return }
                let task = try store(indexes[next])
                next += 1
                group.addTask { try await task() }
            }
            for _ in 0..<concurrency { try schedule() }
            while let (result, refusal) = try await group.next() {
                record(result, refusal)
                try schedule()
            }
        }
    }

    /// Files `reports` through the engine, as the API would, counting them into `outcome`.
    private static func file(_ reports: [SimulatedReport], engine: Engine, into outcome: inout Outcome) async throws {
        for report in reports {
            let submission = ReportSubmission(
                venueExternalID: report.venue, deviceID: report.device, at: report.at, utcOffsetMinutes: 0,
                felt: report.felt, comment: report.comment)
            switch try await engine.reports.submit(submission, bands: engine.loudness.currentBands) {
            case .created: outcome.reportsFiled += 1
            case .duplicate, .conflict: outcome.reportsAlreadyThere += 1
            case .unknownVenue: throw SimulationError("report about unknown venue \(report.venue)")
            }
        }
    }

    /// Judges every queued venue here, a batch at a time, until the queue is empty (venues a
    /// running server's worker holds are left to it, and looked at again until it is done), as
    /// `hearclear recompute` does.
    static func drain(_ engine: Engine) async throws -> Int {
        try await engine.recomputation().processQueued { _ in }
    }

    /// The submission the server's v2 validator would make of the check-in `simulate` sends: the
    /// same rounded levels (to 0.01 dB, as sent), whole seconds from the start, times in UTC.
    static func submission(_ planned: SimulatedCity.PlannedCheckin, venue: SimulatedVenue) throws
        -> CheckinSubmission
    {
        guard let id = UUID(uuidString: planned.truth.id) else {
            throw SimulationError("\(planned.truth.id) is not a UUID")
        }
        let rounded = { (value: Double) in Float((value * 100).rounded() / 100) }
        return CheckinSubmission(
            id: id,
            venue: .init(
                externalID: venue.id,
                details: VenueDetails(
                    name: venue.name, latitude: venue.latitude, longitude: venue.longitude, timezone: venue.timezone,
                    category: venue.kind.rawValue)),
            deviceID: planned.truth.device, deviceModel: planned.model,
            deviceOS: planned.os.map { "\($0.name) \($0.version)" },
            location: planned.location.map {
                .init(latitude: $0.latitude, longitude: $0.longitude, accuracyMetres: 15)
            },
            source: .v2, startedAt: planned.start,
            offsetsSeconds: planned.session.averageDBFS.indices.map { Int32($0) }, utcOffsetsMinutes: [0],
            averageDBFS: planned.session.averageDBFS.map(rounded), peakDBFS: planned.session.peakDBFS.map(rounded))
    }
}

extension Duration {
    /// In seconds, as a `Double`.
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}
