import ArgumentParser
import Foundation
import HearClearCLI
import LoudnessCore

struct Simulate: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Build a synthetic city through the public API, or evaluate the served grid against its truth.",
        discussion: """
            Without --evaluate: makes --venues venues with true weekday × hour profiles (cafés, pubs, \
            restaurants, clubs in four time zones, or in one city's centre with --place), phones of --models models whose biases are drawn from \
            N(0, --model-sd dB) (each phone adds its own, N(0, 1 dB)), and \
            check-ins over the last --days days with speech-and-music-like 1-second noise, each evening a \
            little louder or quieter than the venue's usual for that hour (--occasion-sd); a --contamination \
            share of them is spoiled (pocket dropouts, bumps, stuck meters, always-full-scale devices, \
            check-ins made at another venue). A --hide-cells share of the true cells gets no check-ins at all, \
            nor does any weekday of a --hide-hours share of each venue's hours of the day. \
            Sends them to --url and writes the ground truth to --truth.

            With --evaluate TRUTH: reads the served grids and check-in judgements and prints the mean \
            absolute error (dB) and the share of correct labels over cells with at least 3 check-ins, for \
            the server, the 2013 method (mean of amplitudes, ± 1 SD, on the 2013 server's own clock: UTC unless \
            --legacy-server-zone), the same estimator on venue-local cells, a plain energetic mean and an oracle \
            (the median of only the clean check-ins); then, for the hidden cells, the server's estimates \
            (MAE, share of true levels inside the stated range) beside the naive guess of the venue's overall \
            level. With --calibration (the output of `hearclear calibrate models --json` after the server \
            fitted the city), the recovered model offsets against the true biases, and the accuracy of \
            the server, the oracle and an oracle also told each model's bias, each with its constant offset \
            removed (the crowd alone cannot know the absolute level). Only loopback or your own test hosts \
            are fit targets. The server rate-limits this tool like \
            any client (one address, few devices): start it with --rate-exempt 127.0.0.1,::1 (as \
            `make run` does) to measure it rather than its limits.

            Check-ins are sent in time order (by start, ties by id), as a city delivers them, each with \
            its phone's device.os. The trust scenarios (below; each off by default, each from its own \
            generator, so a city with one off is the city of before) make venues change lastingly, a \
            model or single phones step, every phone age, fresh device ids send fakes, slow-burn devices \
            earn trust before lying, and honest newcomers arrive; the truth file says all they did. \
            --evaluate scores every cell against the truth now and, for a truth with scenarios, adds a \
            section for each beside an oracle told the junk, the fakes and every phone's offset at the \
            time; --compare-url (the same city without the scenario) and --reference-url (judged by \
            today's method) are scored beside the server. --engine stores the city through the engine \
            (any age: --days up to 800) and judges it before returning; --dry-run only plans it.
            """
    )

    @Option(help: "Base URL of the server, e.g. http://127.0.0.1:8080 (not needed with --engine or --dry-run).")
    var url: String?
    @Option(help: "Venues to create.") var venues = 20
    @Option(
        help: """
            Days of check-ins, ending yesterday: at most 13 through the API (samples must be under 14 days \
            old), up to 800 with --engine or --dry-run.
            """)
    var days = 13
    @Option(help: "Seed of the generator: the same seed makes the same city.") var seed: UInt64 = 1
    @Option(
        help: """
            Put every venue in this real city's centre (within about 1.2 km), in its time zone, with names \
            of the kind found there (invented ones): \(SimulatedPlace.all.map(\.name).joined(separator: ", ")). \
            The same draws as without, so the venues' kinds and levels are the seed's. Default: four cities \
            in four time zones, venues named "Simulated <kind> <n>".
            """)
    var place: String?
    @Option(
        help: """
            With --engine: reports of wrong data filed after the city is judged, by phones that were there \
            (each "quieter" or "louder" one seconded by another phone, so their hours are disputed). 0: none.
            """)
    var reports = 0
    @Option(help: "Share of spoiled check-ins, 0…1.") var contamination = 0.2
    @Option(help: "Mean check-ins per open venue-hour per day.") var rate = 2.0
    @Option(
        help: """
            SD (dB) of one evening's level about the venue's usual level for that weekday and hour, shared \
            by that hour's check-ins (crowds differ from week to week). 0 gives the cities of before this \
            option.
            """)
    var occasionSD = 2.0
    @Option(
        help: """
            Share of the true cells (venue × weekday × hour) whose check-ins are not sent, 0…0.9: --evaluate \
            scores the server's estimates for them against the truth. 0 gives the cities of before this option.
            """)
    var hideCells = 0.2
    @Option(
        help: """
            Share of each venue's hours of the day whose check-ins are not sent on any weekday, 0…0.9: the \
            venue's own pattern cannot estimate those; venues of its kind nearby may. 0 gives the cities \
            of before this option.
            """)
    var hideHours = 0.0
    @Option(help: "Phone models in the city (1…16).") var models = 10
    @Option(help: "SD (dB) of the phone models' biases.") var modelSD = 3.0
    @Option(
        help: """
            Models given a reference calibration once the city is sent, as a calibrator tone would measure \
            them (their true offset ± 0.1 dB), recorded in the server's database (--database-url or \
            --data-dir: an operator's act) with a crowd fit after: the crowd's offsets then carry the \
            absolute level. 0: none.
            """)
    var referenceModels = 0
    @OptionGroup var database: ServerOptions
    @Option(
        help: "With --evaluate: `hearclear calibrate models --json` of the server, to score the recovered offsets.")
    var calibration: String?
    @Option(help: "Where to write the ground truth.") var truth = "simulation-truth.json"
    @Option(help: "Evaluate the served grid against this ground truth file instead of simulating.")
    var evaluate: String?
    @Option(help: "Concurrent requests.") var concurrency = 8
    @Option(help: "With --evaluate: the zone of the 2013 server's clock, which bucketed check-ins by its own hour.")
    var legacyServerZone = "UTC"
    @Option(help: "With --evaluate: list the server's worst cells with their check-ins.") var worst = 0
    @OptionGroup(title: "Trust scenarios (each off by default)") var scenarioOptions: ScenarioOptions
    @Flag(
        help: """
            Submit every check-in through the engine (the database of --data-dir or --database-url, as \
            the server would store it, any age) instead of the API, then judge the city here before \
            returning; a server started on the same --data-dir then serves it.
            """)
    var engine = false
    @Flag(help: "Draw the city and write its truth (with every planned check-in), but send nothing.")
    var dryRun = false
    @Option(
        help: """
            The city's now, RFC 3339 (e.g. 2026-11-27T18:00:00Z): its days end the day before; the same seed \
            and now make the same city (the weekday of each day sets its levels). Default: the clock. \
            Through the API its check-ins must still be under 14 days old.
            """)
    var now: String?
    @Option(
        help: """
            With --evaluate: a server holding the same city without the scenario (same seed, scenario \
            off): prints how far each served cell moved between the two, and both servers' errors.
            """)
    var compareURL: String?
    @Option(help: "With --compare-url: the truth file of the city it holds.") var compareTruth: String?
    @Option(
        help: """
            With --evaluate: a server holding the same city judged by today's method (an older binary): \
            its scores are printed beside the server's, labelled "today's method".
            """)
    var referenceURL: String?

    func validate() throws {
        guard (1...10_000).contains(venues) else { throw ValidationError("--venues must be 1…10000") }
        if let place, SimulatedPlace.named(place) == nil {
            throw ValidationError(
                "--place must be one of \(SimulatedPlace.all.map(\.name).joined(separator: ", ")), not \(place)")
        }
        if engine || dryRun || evaluate != nil {
            guard (1...800).contains(days) else { throw ValidationError("--days must be 1…800") }
        } else {
            guard (1...13).contains(days) else {
                throw ValidationError("--days must be 1…13 through the API (up to 800 with --engine)")
            }
        }
        guard reports >= 0, reports <= 1000 else { throw ValidationError("--reports must be 0…1000") }
        guard reports == 0 || engine else { throw ValidationError("--reports needs --engine") }
        if let now, ISO8601DateFormatter().date(from: now) == nil {
            throw ValidationError("--now must be an RFC 3339 time such as 2026-11-27T18:00:00Z, not \(now)")
        }
        guard !(engine && dryRun) else { throw ValidationError("--engine and --dry-run exclude each other") }
        if evaluate != nil || !(engine || dryRun) {
            guard url != nil else { throw ValidationError("--url is needed (but not with --engine or --dry-run)") }
        }
        guard (compareURL == nil) == (compareTruth == nil) else {
            throw ValidationError("--compare-url and --compare-truth go together")
        }
        if engine, database.dataDir == nil, database.databaseURL == nil,
            ProcessInfo.processInfo.environment["HEARCLEAR_DATA_DIR"] == nil,
            ProcessInfo.processInfo.environment["HEARCLEAR_DATABASE_URL"] == nil
        {
            throw ValidationError("--engine needs --data-dir or --database-url")
        }
        try scenarioOptions.validate(
            days: days, venues: venues, models: Array(SimulatedModel.names.prefix(max(1, min(16, models)))))
        guard (0...1).contains(contamination) else { throw ValidationError("--contamination must be 0…1") }
        guard rate > 0, rate <= 20 else { throw ValidationError("--rate must be in (0, 20]") }
        guard (0...0.9).contains(hideCells) else { throw ValidationError("--hide-cells must be 0…0.9") }
        guard (0...0.9).contains(hideHours) else { throw ValidationError("--hide-hours must be 0…0.9") }
        guard (0...10).contains(occasionSD) else { throw ValidationError("--occasion-sd must be 0…10 dB") }
        guard (1...256).contains(concurrency) else { throw ValidationError("--concurrency must be 1…256") }
        guard TimeZone(identifier: legacyServerZone) != nil else {
            throw ValidationError("--legacy-server-zone must be an IANA zone, e.g. UTC")
        }
        guard worst >= 0 else { throw ValidationError("--worst must be ≥ 0") }
        guard (1...16).contains(models) else { throw ValidationError("--models must be 1…16") }
        guard (0...10).contains(modelSD) else { throw ValidationError("--model-sd must be 0…10 dB") }
        guard (0...models).contains(referenceModels) else {
            throw ValidationError("--reference-models must be 0…--models")
        }
    }

    func run() async throws {
        guard let url else {
            try await simulate(nil)
            return
        }
        var clients = [try SimulationClient(url: url, connections: concurrency)]
        do {
            if let evaluate {
                var evaluation = SimulationEvaluation(
                    truth: try SimulationTruth.read(evaluate), client: clients[0], concurrency: concurrency)
                evaluation.legacyServerZone = TimeZone(identifier: legacyServerZone) ?? evaluation.legacyServerZone
                evaluation.worst = worst
                if let calibration {
                    evaluation.calibration = try Data(contentsOf: URL(fileURLWithPath: calibration))
                }
                if let referenceURL {
                    clients.append(try SimulationClient(url: referenceURL, connections: concurrency))
                    evaluation.reference = clients.last
                }
                if let compareURL, let compareTruth {
                    clients.append(try SimulationClient(url: compareURL, connections: concurrency))
                    evaluation.compare = (clients[clients.count - 1], try SimulationTruth.read(compareTruth))
                }
                if database.dataDir != nil || database.databaseURL != nil {
                    let truth = evaluation.truth
                    evaluation.databaseFigures = try await DatabaseSession.run(database) { engine, _ in
                        try await DatabaseFigures.collect(engine: engine, truth: truth)
                    }
                }
                let report = try await evaluation.run()
                print(report)
            } else {
                try await simulate(clients[0])
            }
            for client in clients { try await client.shutdown() }
        } catch {
            for client in clients { try? await client.shutdown() }
            throw error
        }
    }

    private func simulate(_ client: SimulationClient?) async throws {
        let now = self.now.flatMap { ISO8601DateFormatter().date(from: $0) } ?? Date()
        var city = SimulatedCity(
            seed: seed, venueCount: venues, days: days, contamination: contamination, rate: rate,
            occasionSD: occasionSD, models: SimulatedModel.make(count: models, sd: modelSD, seed: seed), now: now,
            place: place.flatMap(SimulatedPlace.named))
        let hidden = city.hideCells(share: hideCells, hourShare: hideHours, seed: seed)
        var scenarios = scenarioOptions.scenarios
        let notes = city.apply(&scenarios, seed: seed, days: days, contamination: contamination, now: now)
        if !scenarios.isActive { city.scenarios = nil }
        // As a city would deliver them: the server sees each venue's history in time order.
        city.sortChronologically()
        let spoiled = city.checkins.count { $0.truth.contamination != nil }
        let destination =
            dryRun
            ? "not sending (--dry-run)"
            : engine ? "submitting through the engine…" : "sending to \(client?.endpoint ?? "?")…"
        print(
            "city: \(city.venues.count) venues, \(city.devices.count) devices, \(city.checkins.count) check-ins "
                + "(\(spoiled) spoiled) over \(days) days, \(hidden.count) cells hidden; \(destination)"
        )
        if scenarios.isActive { print("scenarios: \(scenarios.summary)") }
        for note in notes { print("  " + note) }
        let truthFile = city.truth(
            seed: seed, contamination: contamination, occasionSD: occasionSD, hiddenCells: hidden, generatedAt: now)
        if dryRun {
            try truthFile.write(truth)
            print("planned \(city.checkins.count) check-ins; truth written to \(truth)")
            return
        }
        if engine {
            try await submitThroughEngine(city, truthFile: truthFile)
        } else if let client {
            try await send(city, truthFile: truthFile, to: client)
        }
    }

    /// `--engine`: stores and judges the city here, then writes its truth.
    private func submitThroughEngine(_ city: SimulatedCity, truthFile: SimulationTruth) async throws {
        let started = ContinuousClock.now
        let outcome = try await EngineSubmission.submit(
            city, reports: city.reports(count: reports, seed: seed), database: database, concurrency: concurrency)
        try truthFile.write(truth)
        print(outcome.summary)
        print(String(format: "the engine path took %.1f s in all", started.duration(to: .now).seconds))
        print("truth written to \(truth)")
        if referenceModels > 0 { try await calibrate(city.models.prefix(referenceModels)) }
        if let first = outcome.refusals.first { print("first refusal: \(first)") }
        print("serve the same --data-dir and evaluate with: hearclear-bench simulate --evaluate \(truth) --url URL")
    }

    /// Through the API: sends the city's check-ins `concurrency` at a time, waits until the last
    /// is judged, then writes its truth.
    private func send(_ city: SimulatedCity, truthFile: SimulationTruth, to client: SimulationClient) async throws {
        let started = ContinuousClock.now
        let progress = ProgressBar(total: city.checkins.count, label: "check-ins")
        var sent = 0
        var failures: [String] = []
        try await withThrowingTaskGroup(of: String?.self) { group in
            var next = 0
            func schedule() throws {
                guard next < city.checkins.count else { return }
                let checkin = try city.checkin(city.checkins[next])
                next += 1
                group.addTask { try await client.post(checkin) }
            }
            for _ in 0..<concurrency { try schedule() }
            while let failure = try await group.next() {
                sent += 1
                progress.update(sent)
                if let failure { failures.append(failure) }
                try schedule()
            }
        }
        progress.finish(sent)
        try truthFile.write(truth)
        if let last = city.checkins.last?.truth.id { try await waitForJudgement(of: last, client: client) }
        print("sent \(sent - failures.count) check-ins, \(failures.count) refused; truth written to \(truth)")
        print(String(format: "sending and judging took %.1f s", started.duration(to: .now).seconds))
        if referenceModels > 0 { try await calibrate(city.models.prefix(referenceModels)) }
        if let first = failures.first { print("first refusal: \(first)") }
        print("evaluate with: hearclear-bench simulate --evaluate \(truth) --url \(client.endpoint)")
    }

    /// Records a tone calibration of each of `models` as a calibrator would measure it (the
    /// reference offset less the model's bias, ± 0.1 dB), then fits.
    private func calibrate(_ models: ArraySlice<SimulatedModel>) async throws {
        var random = SplitMix64(seed: seed ^ 0x5245_4653)
        let measured = models.map {
            ($0.model, SimulatedSession.referenceOffsetDB - $0.biasDB + random.normal(sd: 0.1))
        }
        let applied = try await DatabaseSession.run(database) { engine, _ in
            for (model, offset) in measured {
                _ = try await engine.calibrator.calibrations.addReference(
                    model: model, method: .tone, absoluteOffsetDB: offset, detail: #"{"simulated": true}"#,
                    createdBy: "simulate")
            }
            return try await engine.calibrator.refit()
        }
        print(
            "reference calibrations of \(measured.map(\.0).joined(separator: ", ")); "
                + (applied.map { "fit \($0.fitID) queued \($0.queuedVenues) venue(s)" } ?? "another instance is fitting")
        )
    }

    private func waitForJudgement(of id: String, client: SimulationClient) async throws {
        let deadline = ContinuousClock.now + .seconds(120)
        while ContinuousClock.now < deadline {
            if let checkin = try await client.checkin(id), checkin.status != .pending { return }
            try await Task.sleep(for: .milliseconds(200))
        }
    }
}
