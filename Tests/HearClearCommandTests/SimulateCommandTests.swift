import Foundation
import HearClearServerTestSupport
import HearClearTestSupport
import PostgresNIO
import Testing

/// `hearclear-bench simulate` against a served application, through the typed client.
@Suite("hearclear-bench simulate")
struct SimulateCommandTests {
    @Test(
        "hearclear-bench simulate sends its city through the client, and --evaluate reads it back",
        .timeLimit(.minutes(5)))
    func simulate() async throws {
        try await MeterServer.withLive { server, database in
            let url = "http://localhost:\(try #require(server.port))"
            try await withScratchDirectory { scratch in
                let truth = scratch.appendingPathComponent("truth.json").path
                let sent = try await HearClearCommand.run(
                    [
                        "simulate", "--url", url, "--venues", "2", "--days", "1", "--rate", "1", "--seed", "7",
                        "--hide-cells", "0", "--truth", truth,
                    ], program: "hearclear-bench", scratch: scratch)
                #expect(sent.status == 0, "\(sent.errors)")
                let line = try #require(sent.output.split(separator: "\n").first { $0.hasPrefix("sent ") })
                #expect(line.contains(", 0 refused"), "\(sent.output)")
                let count = try #require(Int(line.split(separator: " ")[1]))
                #expect(count > 0)

                #expect(try await database.count("checkins") == count)
                #expect(
                    try await database.count("venues", where: "external_id LIKE 'sim-7-%' AND timezone IS NOT NULL")
                        == 2)
                #expect(
                    try await database.count(
                        "checkins", where: "COALESCE(utc_offsets_min, ARRAY[utc_offset_min]) <> '{0}'") == 0,
                    "the simulator writes its times in UTC")

                let evaluated = try await HearClearCommand.run(
                    ["simulate", "--url", url, "--evaluate", truth], program: "hearclear-bench", scratch: scratch)
                #expect(evaluated.status == 0, "\(evaluated.errors)")
                #expect(evaluated.output.contains("judgements (outlier or excluded = rejected):"))
                #expect(evaluated.output.contains("clean"))
            }
        }
    }
}

extension SimulateCommandTests {
    /// `--engine` with `--place` and `--reports`, as `make demo` fills its city: stored and judged
    /// through the engine in a test database, venues in central Berlin, reports beside their cells.
    @Test(
        "simulate --engine --place berlin --reports stores a judged Berlin city with disputed hours",
        .timeLimit(.minutes(5)))
    func engineCityWithReports() async throws {
        try await withTestDatabase { database, configuration in
            let url = try await HearClearCommand.databaseURL(configuration)
            try await withScratchDirectory { scratch in
                let run = try await HearClearCommand.run(
                    [
                        "simulate", "--engine", "--database-url", url, "--place", "berlin", "--venues", "3",
                        "--days", "20", "--rate", "1", "--seed", "3", "--reports", "6",
                        "--truth", scratch.appendingPathComponent("truth.json").path,
                    ], program: "hearclear-bench", scratch: scratch)
                #expect(run.status == 0, "\(run.errors)")
                #expect(run.output.contains("filed 6 report(s) (0 already there)"), "\(run.output)")
                // Older than the API's 14 days too, through the engine.
                #expect(try await database.count("checkins", where: "started_at < now() - interval '15 days'") > 0)
                #expect(try await database.count("venues", where: "timezone = 'Europe/Berlin'") == 3)
                #expect(try await database.count("venues", where: "name LIKE 'Simulated%'") == 0)
                #expect(try await database.count("venue_reports") == 6)
                // Each report is about a judged hour: the level the server showed is kept beside it.
                #expect(try await database.count("venue_reports", where: "shown_level_db IS NULL") == 0)
                // A "quieter" or "louder" report is seconded by another device about the same hour.
                #expect(
                    try await database.count(
                        "venue_reports r",
                        where: """
                            r.felt <> 'about right' AND EXISTS (SELECT 1 FROM venue_reports o WHERE o.id <> r.id \
                            AND o.venue_id = r.venue_id AND o.weekday = r.weekday AND o.hour = r.hour AND o.felt = r.felt \
                            AND o.device_sha256 <> r.device_sha256)
                            """) > 0)
            }
        }
    }
}

extension SimulateCommandTests {
    /// The trust scenarios of `hearclear-bench simulate`, on the planned city (`--dry-run`: drawn and
    /// written to the truth file, nothing sent), so no server is needed.
    @Suite("hearclear-bench simulate scenarios")
    struct Scenarios {
        /// A planned check-in as the truth file has it.
        struct Planned: Equatable {
            var id: String
            var venue: String
            var device: String
            var hour: Int
            var leq: Double
            var start: Double
            var clean: Bool
            var fake: String?
            var afterChange: Bool?
        }

        struct Plan {
            var checkins: [Planned]
            var truth: [String: Any]
            var output: String
        }

        /// A small city at a fixed now (its weekdays set its levels and hidden cells).
        static let city = [
            "--seed", "1", "--venues", "3", "--days", "2", "--rate", "1", "--now", "2026-11-27T18:00:00Z",
        ]

        /// Plans a city with `arguments` and reads its truth file.
        static func plan(_ arguments: [String], scratch: URL) async throws -> Plan {
            let path = scratch.appendingPathComponent("truth-\(UUID().uuidString).json").path
            let run = try await HearClearCommand.run(
                ["simulate", "--dry-run", "--truth", path] + city + arguments, program: "hearclear-bench",
                scratch: scratch)
            #expect(run.status == 0, "\(run.errors)")
            let data = try Data(contentsOf: URL(fileURLWithPath: path))
            let truth = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
            let checkins = try #require(truth["checkins"] as? [[String: Any]]).map { checkin in
                Planned(
                    id: checkin["id"] as? String ?? "", venue: checkin["venue"] as? String ?? "",
                    device: checkin["device"] as? String ?? "", hour: checkin["hour"] as? Int ?? -1,
                    leq: checkin["leqDBFS"] as? Double ?? .nan, start: checkin["start"] as? Double ?? .nan,
                    clean: checkin["contamination"] == nil, fake: checkin["fake"] as? String,
                    afterChange: checkin["afterChange"] as? Bool)
            }
            return Plan(checkins: checkins, truth: truth, output: run.output)
        }

        @Test("a scenario off plans exactly today's city, in time order", .timeLimit(.minutes(2)))
        func scenarioOff() async throws {
            try await withScratchDirectory { scratch in
                let plain = try await Self.plan([], scratch: scratch)
                let off = try await Self.plan(
                    ["--change-share", "0", "--fake-venues", "0", "--model-step-db", "0", "--newcomers", "0"],
                    scratch: scratch)
                #expect(plain.checkins == off.checkins)
                #expect(plain.truth["scenarios"] == nil && off.truth["scenarios"] == nil)
                // Today's generator on seed 1 (3 venues, 2 days, rate 1, that now), as the simulator
                // before the scenarios drew it and sent it: the same check-ins, now in time order.
                #expect(plain.checkins.count == 64)
                let fingerprint = plain.checkins.map { "\($0.id) \(String(format: "%.6f", $0.leq))" }.sorted()
                    .joined(separator: "\n")
                #expect(Self.fnv1a(fingerprint) == 0xae9b_5650_92df_4191)
                let starts = plain.checkins.map(\.start)
                #expect(starts == starts.sorted())
            }
        }

        @Test("a changed venue's check-ins after the change read it, and only those", .timeLimit(.minutes(2)))
        func change() async throws {
            try await withScratchDirectory { scratch in
                let plain = try await Self.plan([], scratch: scratch)
                let changed = try await Self.plan(
                    ["--change-share", "1", "--change-db", "6", "--change-days-ago", "1.5"], scratch: scratch)
                #expect(plain.checkins.map(\.id) == changed.checkins.map(\.id))
                var after = 0
                for (before, now) in zip(plain.checkins, changed.checkins) where before.clean {
                    #expect(now.afterChange != nil, "\(now.id)")
                    if now.afterChange == true {
                        after += 1
                        #expect(abs(now.leq - before.leq - 6) < 1e-9, "\(now.id)")
                    } else {
                        #expect(now.leq == before.leq, "\(now.id)")
                    }
                }
                #expect(after > 0)
                let venues = try #require(changed.truth["venues"] as? [[String: Any]])
                #expect(venues.allSatisfy { $0["change"] != nil })

                // Limited to 22:00–23:59: the other hours are as before.
                let late = try await Self.plan(
                    ["--change-share", "1", "--change-days-ago", "1.5", "--change-hours", "22-24"], scratch: scratch)
                for (before, now) in zip(plain.checkins, late.checkins) where before.clean {
                    let moved = now.afterChange == true && (22...23).contains(now.hour)
                    #expect(abs(now.leq - before.leq - (moved ? 6 : 0)) < 1e-9, "\(now.id) at \(now.hour)")
                }
            }
        }

        @Test("fakes come from fresh device ids, 1–2 each, at the requested share", .timeLimit(.minutes(2)))
        func fakes() async throws {
            try await withScratchDirectory { scratch in
                let plain = try await Self.plan([], scratch: scratch)
                let attacked = try await Self.plan(
                    ["--fake-venues", "1", "--fake-share", "0.3", "--fake-db", "-12"], scratch: scratch)
                let fakes = attacked.checkins.filter { $0.fake == "fresh_device" }
                #expect(!fakes.isEmpty)
                // The honest city is untouched.
                #expect(attacked.checkins.filter { $0.fake == nil } == plain.checkins)
                let known = Set(plain.checkins.map(\.device))
                let perDevice = Dictionary(grouping: fakes, by: \.device)
                #expect(perDevice.keys.allSatisfy { !known.contains($0) })
                #expect(perDevice.values.allSatisfy { (1...2).contains($0.count) })
                #expect(attacked.checkins.filter { perDevice[$0.device] != nil }.count == fakes.count)
                let target = try #require(Set(fakes.map(\.venue)).first)
                #expect(Set(fakes.map(\.venue)).count == 1)
                let honest = plain.checkins.count { $0.venue == target }
                let share = Double(fakes.count) / Double(fakes.count + honest)
                #expect(abs(share - 0.3) <= 1 / Double(fakes.count + honest), "\(fakes.count) fakes beside \(honest)")
            }
        }

        @Test(
            "--place berlin draws the same venues in Berlin's centre, named as there, all names different",
            .timeLimit(.minutes(2)))
        func place() async throws {
            try await withScratchDirectory { scratch in
                func venues(_ plan: Plan) throws -> [[String: Any]] {
                    try #require(plan.truth["venues"] as? [[String: Any]]).compactMap { $0["venue"] as? [String: Any] }
                }
                let plain = try venues(try await Self.plan([], scratch: scratch))
                let berlinPlan = try await Self.plan(["--place", "berlin"], scratch: scratch)
                let berlin = try venues(berlinPlan)
                #expect(berlin.count == 3 && plain.count == 3)
                for (here, anywhere) in zip(berlin, plain) {
                    #expect(here["id"] as? String == anywhere["id"] as? String)
                    #expect(here["kind"] as? String == anywhere["kind"] as? String)
                    #expect(here["baseDB"] as? Double == anywhere["baseDB"] as? Double)
                    #expect(here["timezone"] as? String == "Europe/Berlin")
                    let latitude = try #require(here["latitude"] as? Double)
                    let longitude = try #require(here["longitude"] as? Double)
                    // Within 1.2 km of the centre each way: the diagonal is at most 1.7 km.
                    #expect(Self.metres(latitude, longitude, 52.5186, 13.4050) < 1700, "\(latitude), \(longitude)")
                    #expect(!((here["name"] as? String) ?? "Simulated").hasPrefix("Simulated"))
                }
                #expect(!berlinPlan.checkins.isEmpty)
                // More venues of a kind than its list of names: they come round again, numbered.
                let many = try venues(try await Self.plan(["--place", "berlin", "--venues", "40"], scratch: scratch))
                let names = many.compactMap { $0["name"] as? String }
                #expect(names.count == 40 && Set(names).count == 40, "\(names)")
                #expect(names.contains { $0.hasSuffix(" 2") }, "\(names)")
            }
        }

        /// Great-circle distance, metres (haversine, on a sphere of 6,371 km).
        static func metres(_ lat1: Double, _ lon1: Double, _ lat2: Double, _ lon2: Double) -> Double {
            let radians = Double.pi / 180
            let a =
                pow(sin((lat2 - lat1) * radians / 2), 2) + cos(lat1 * radians) * cos(lat2 * radians)
                * pow(sin((lon2 - lon1) * radians / 2), 2)
            return 2 * 6_371_000 * asin(a.squareRoot())
        }

        @Test("out-of-range scenario options are refused", .timeLimit(.minutes(2)))
        func validation() async throws {
            try await withScratchDirectory { scratch in
                for (arguments, message) in [
                    (["--change-share", "1.5"], "--change-share must be 0…1"),
                    (["--change-hours", "22-25"], "--change-hours must be A-B"),
                    (["--change-share", "0.5", "--change-days-ago", "3"], "--change-days-ago must be in (0, --days]"),
                    (["--fake-share", "0.95"], "--fake-share must be in (0, 0.9]"),
                    (["--place", "atlantis"], "--place must be one of berlin, not atlantis"),
                    (["--reports", "2"], "--reports needs --engine"),
                    (["--fake-venues", "4"], "--fake-venues must be 0…--venues"),
                    (["--model-step-model", "Nokia 3310"], "--model-step-model must be one of the city's models"),
                    (["--ageing-db-per-year", "11"], "--ageing-db-per-year must be -10…10 dB"),
                    (
                        ["--slow-burn-venues", "1", "--slow-burn-attack-days", "2"],
                        "--slow-burn-attack-days must be in (0, --days)"
                    ),
                ] {
                    let run = try await HearClearCommand.run(
                        ["simulate", "--dry-run", "--truth", scratch.appendingPathComponent("refused.json").path]
                            + Self.city + arguments, program: "hearclear-bench", scratch: scratch)
                    #expect(run.status != 0, "\(arguments)")
                    #expect(run.errors.contains(message), "\(arguments): \(run.errors)")
                }
                let api = try await HearClearCommand.run(
                    ["simulate", "--url", "http://127.0.0.1:9", "--days", "20"], program: "hearclear-bench",
                    scratch: scratch)
                #expect(api.status != 0)
                #expect(api.errors.contains("--days must be 1…13 through the API"), "\(api.errors)")
            }
        }

        /// FNV-1a, 64 bits, of the text's UTF-8.
        static func fnv1a(_ text: String) -> UInt64 {
            var hash: UInt64 = 0xcbf2_9ce4_8422_2325
            for byte in text.utf8 {
                hash ^= UInt64(byte)
                hash = hash &* 0x100_0000_01b3
            }
            return hash
        }
    }
}
