import AsyncHTTPClient
import Foundation
import HearClearCLI
import NIOCore
import NIOFoundationCompat
import Synchronization

/// `--setup` of `loadtest search`: makes every venue of the city what ``SearchLoadtest/place(_:)``
/// says, many requests at a time, leaving alone the venues already in place.
extension SearchLoadtest {
    /// Requests `--setup` keeps in flight (each worker one at a time).
    static let setupConcurrency = 32
    /// Tries of a setup request that meets a busy server or a broken connection.
    static let setupAttempts = 4
    /// Seconds between `--setup`'s progress lines.
    static let setupProgressInterval: Duration = .seconds(5)
    /// How long `--setup` waits for the sampled venues' cells.
    static let setupCellsLimit: Duration = .seconds(120)

    /// What `--setup` did to one venue.
    struct SetupStep: Sendable {
        /// Whether it was created or replaced (PUT).
        var saved = false
        /// The check-ins it was given.
        var checkins = 0
    }

    /// `--setup`'s shared state: the next venue to prepare and what was done so far.
    final class SetupProgress: Sendable {
        /// What the workers did so far.
        struct Counts: Sendable {
            /// The next venue no worker has taken.
            var next = 0
            /// Venues finished, of them saved (PUT), given check-ins, and left as they were.
            var done = 0
            var saved = 0
            var checkedIn = 0
            var untouched = 0
            /// Check-ins posted in all.
            var checkins = 0
        }

        private let counts = Mutex(Counts())
        /// Venues in the city.
        let total: Int

        init(total: Int) { self.total = total }

        /// The next venue to prepare, nil when every one is taken.
        func take() -> Int? {
            counts.withLock { counts in
                guard counts.next < total else { return nil }
                defer { counts.next += 1 }
                return counts.next
            }
        }

        /// Counts a venue finished.
        func finish(_ step: SetupStep) {
            counts.withLock { counts in
                counts.done += 1
                if step.saved { counts.saved += 1 }
                if step.checkins > 0 { counts.checkedIn += 1 }
                if !step.saved && step.checkins == 0 { counts.untouched += 1 }
                counts.checkins += step.checkins
            }
        }

        /// What was done so far.
        var snapshot: Counts { counts.withLock { $0 } }
    }

    /// Makes sure every venue is in place, with check-ins when it has data, then waits for a sample
    /// of the venues with data to have cells. Returns the middle of the check-ins it sent (the
    /// instant the searches ask about unless `--at` says otherwise), nil when it sent none.
    func setUp(client: HTTPClient, endpoint: String) async throws -> Date? {
        note(
            "setup: \(venues) venues \(prefix)0 … \(prefix)\(venues - 1), \(Self.setupConcurrency) requests at a time…")
        let began = Date()
        let started = ContinuousClock.now
        let progress = SetupProgress(total: venues)
        let reporter = Task { await reportSetup(progress, started: started) }
        defer { reporter.cancel() }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for worker in 0..<min(Self.setupConcurrency, venues) {
                group.addTask {
                    // Created now: every check-in of the setup covers the same five minutes.
                    var generator = SyntheticCheckin(
                        seed: 0x5EA2_0000 &+ UInt64(worker), samples: ReadLoadtest.samples, venues: venues,
                        venuePrefix: prefix)
                    while let venue = progress.take() {
                        let step = try await prepare(
                            venue: venue, generator: &generator, client: client, endpoint: endpoint)
                        progress.finish(step)
                    }
                }
            }
            try await group.waitForAll()
        }
        reporter.cancel()
        let counts = progress.snapshot
        note(
            "setup: \(venues) venues in \(Self.seconds(since: started)): \(counts.saved) created or replaced, "
                + "\(counts.checkedIn) given \(counts.checkins) check-ins, \(counts.untouched) already in place")
        try await awaitCells(client: client, endpoint: endpoint)
        // SyntheticCheckin's samples end two minutes before it was made and last `samples` seconds.
        return counts.checkins > 0 ? began.addingTimeInterval(-120 - Double(ReadLoadtest.samples) / 2) : nil
    }

    /// Prints a progress line every `setupProgressInterval` until cancelled.
    private func reportSetup(_ progress: SetupProgress, started: ContinuousClock.Instant) async {
        while true {
            do { try await Task.sleep(for: Self.setupProgressInterval) } catch { return }
            guard !Task.isCancelled else { return }
            let counts = progress.snapshot
            let elapsed = Double(IngestLoadtest.microseconds(ContinuousClock.now - started)) / 1e6
            let rate = Double(counts.done) / max(elapsed, 1e-9)
            let left = rate > 0 ? " about \(Self.minutes(Double(venues - counts.done) / rate)) left;" : ""
            note(
                String(
                    format: "setup: %d/%d venues (%.0f %%), %.0f a second,", counts.done, venues,
                    Double(counts.done) * 100 / Double(venues), rate)
                    + "\(left) \(counts.saved) created or replaced, \(counts.checkedIn) given check-ins, "
                    + "\(counts.untouched) already in place")
        }
    }

    /// Venue `venue` as the city says: nothing when its document shows its place and, if it has
    /// data, at least three check-ins; else a PUT unless the place is right, and the check-ins it
    /// lacks.
    private func prepare(venue: Int, generator: inout SyntheticCheckin, client: HTTPClient, endpoint: String)
        async throws -> SetupStep
    {
        let place = place(venue)
        let path = "/api/v2/venues/\(prefix)\(venue)"
        var step = SetupStep()
        var get = HTTPClientRequest(url: endpoint + path)
        get.headers.add(name: "Accept-Encoding", value: "gzip")
        let found = try await send(get, client: client)
        guard found.code == 200 || found.code == 404 else {
            throw CommandFailure("setup: GET \(path) answered \(found.code): \(String(buffer: found.body).prefix(300))")
        }
        var document = found.code == 200 ? Self.object(found.body) : nil
        if let current = document, !Self.isAt(place, current) { document = nil }
        if document == nil {
            var put = HTTPClientRequest(url: endpoint + path)
            put.method = .PUT
            put.headers.add(name: "Content-Type", value: "application/json")
            let details: [String: Any] = [
                "name": Self.name(of: venue), "latitude": place.latitude, "longitude": place.longitude,
                "timezone": "Australia/Sydney", "category": ["pub", "cafe", "restaurant", "bar"][venue % 4],
            ]
            put.body = .bytes(ByteBuffer(data: try JSONSerialization.data(withJSONObject: details)))
            let saved = try await send(put, client: client)
            guard saved.code == 200 || saved.code == 201 else {
                throw CommandFailure(
                    "setup: PUT \(path) answered \(saved.code): \(String(buffer: saved.body).prefix(300))")
            }
            step.saved = true
            document = Self.object(saved.body)
        }
        let checkins = document?["checkins"] as? Int ?? 0
        guard place.hasCells, checkins < Self.setupCheckins else { return step }
        for k in checkins..<Self.setupCheckins {
            let device = Self.setupDevices + UInt64(venue * Self.setupCheckins + k)
            let checkin = generator.next(venue: UInt64(venue), device: device)
            // The same request (and check-in id) on every try: a resend is answered 200, not counted twice.
            let posted = try await send(
                try IngestLoadtest.gzippedCheckin(checkin, endpoint: endpoint), client: client)
            guard posted.code == 201 || posted.code == 200 else {
                throw CommandFailure(
                    "setup: a check-in at \(prefix)\(venue) answered \(posted.code): \(String(buffer: posted.body).prefix(300))"
                )
            }
            step.checkins += 1
        }
        return step
    }

    /// Whether a venue document shows `place`: its latitude and longitude (within about a
    /// centimetre) and the city's time zone.
    static func isAt(
        _ place: (latitude: Double, longitude: Double, hasCells: Bool), _ document: [String: Any]
    ) -> Bool {
        guard let latitude = document["latitude"] as? Double, let longitude = document["longitude"] as? Double
        else { return false }
        return abs(latitude - place.latitude) < 1e-7 && abs(longitude - place.longitude) < 1e-7
            && document["timezone"] as? String == "Australia/Sydney"
    }

    /// The JSON object of an answer, nil when it is none.
    static func object(_ body: ByteBuffer) -> [String: Any]? {
        try? JSONSerialization.jsonObject(with: Data(buffer: body)) as? [String: Any]
    }

    /// `request`'s status and body, tried again (up to `setupAttempts` in all, after 0.5, 1 and
    /// 2 s) when the server is busy (429, 502, 503, 504) or the connection fails. The setup's
    /// requests are safe to repeat: a PUT replaces, and a check-in's id makes a resend a no-op.
    private func send(_ request: HTTPClientRequest, client: HTTPClient) async throws -> (code: UInt, body: ByteBuffer) {
        var attempt = 1
        while true {
            do {
                let response = try await client.execute(request, timeout: .seconds(30))
                let body = try await response.body.collect(upTo: 16 << 20)
                let code = response.status.code
                guard attempt < Self.setupAttempts, [429, 502, 503, 504].contains(code) else { return (code, body) }
            } catch let error where attempt < Self.setupAttempts && !(error is CancellationError) {
                // Tried again below.
            }
            try await Task.sleep(for: .milliseconds(500 << (attempt - 1)))
            attempt += 1
        }
    }

    /// Waits (at most `setupCellsLimit`) until the grids of up to 20 venues with data, spread over
    /// the city from the first to the last, answer 200; says so when some still do not.
    private func awaitCells(client: HTTPClient, endpoint: String) async throws {
        let withData = (0..<venues).filter { place($0).hasCells }
        guard let last = withData.last else { return }
        let sampled = min(20, withData.count)
        var waiting = Set((0..<sampled).map { withData[$0 * withData.count / sampled] }).union([last])
        let total = waiting.count
        let started = ContinuousClock.now
        var reported = started
        note("setup: waiting for the cells of \(total) sampled venues with data…")
        while !waiting.isEmpty {
            for venue in waiting.sorted() {
                var request = HTTPClientRequest(url: endpoint + "/api/v2/venues/\(prefix)\(venue)/loudness")
                request.headers.add(name: "Accept-Encoding", value: "gzip")
                if try await send(request, client: client).code == 200 { waiting.remove(venue) }
            }
            if waiting.isEmpty { break }
            guard ContinuousClock.now - started < Self.setupCellsLimit else {
                let missing = waiting.sorted().prefix(5).map { "\(prefix)\($0)" }.joined(separator: ", ")
                note(
                    "setup: warning: \(waiting.count) of \(total) sampled venues with data still have no cells after "
                        + "\(Self.setupCellsLimit.components.seconds) s (\(missing)); measuring anyway")
                return
            }
            if ContinuousClock.now - reported >= Self.setupProgressInterval {
                reported = ContinuousClock.now
                note("setup: \(total - waiting.count)/\(total) sampled venues have cells…")
            }
            try await Task.sleep(for: .milliseconds(250))
        }
        note("setup: all \(total) sampled venues with data have cells (\(Self.seconds(since: started)))")
    }

    /// The time since `start`, e.g. `12.3 s`.
    static func seconds(since start: ContinuousClock.Instant) -> String {
        String(format: "%.1f s", Double(IngestLoadtest.microseconds(ContinuousClock.now - start)) / 1e6)
    }

    /// `seconds` as `42 s` or `12 min 05 s`.
    static func minutes(_ seconds: Double) -> String {
        let whole = Int(seconds.rounded())
        return whole < 60 ? "\(whole) s" : String(format: "%d min %02d s", whole / 60, whole % 60)
    }

    /// Words of the city's names: venue `i` is called "<adjective> <noun> <i>", e.g. "Quiet Tavern 17"
    /// (`scripts/bench-search.sh` searches by their starts).
    static let nameAdjectives = [
        "Quiet", "Golden", "Red", "Old", "Corner", "Little", "Royal", "Green", "Blue", "Silver", "Crown", "Café",
        "Night", "River", "Garden", "Market",
    ]
    static let nameNouns = [
        "Tavern", "Arms", "Kitchen", "Bar", "Lounge", "House", "Room", "Table", "Cellar", "Terrace", "Club", "Inn",
        "Bistro", "Hall", "Yard", "Deli",
    ]

    static func name(of venue: Int) -> String {
        "\(nameAdjectives[venue % nameAdjectives.count]) \(nameNouns[(venue / nameAdjectives.count) % nameNouns.count]) \(venue)"
    }
}
