import AudioMetering
import Foundation
import HearClearClient
import HearClearServerTestSupport
import HearClearTestSupport
import PostgresNIO
import Testing

@testable import HearClearEngine

/// HearClearClient, the generated client, against a running server (the whole application on a
/// real socket, on a fresh database): its typed calls, and the commands that send through it,
/// `hearclear meter --submit` and `hearclear simulate`, checked by what arrived in the database.
@Suite("HearClearClient against a running server")
struct ClientTests {
    @Test("typed calls: a venue created and replaced, a check-in received, refused and read back")
    func typedCalls() async throws {
        try await MeterServer.withLive { server, database in
            let client = Client(
                serverURL: URL(string: "http://localhost:\(try #require(server.port))/")!,
                timeZone: TimeZone(secondsFromGMT: 11 * 3600)!)
            let venue = Components.Schemas.VenueInput(
                name: "The Client Arms", latitude: -33.8688, longitude: 151.2093, timezone: "Australia/Sydney",
                category: "Pub")

            let created = try await client.putVenue(path: .init(venueId: "client-arms"), body: .json(venue))
            #expect(try created.created.headers.location == "/api/v2/venues/client-arms")
            let replaced = try await client.putVenue(path: .init(venueId: "client-arms"), body: .json(venue))
            #expect(try replaced.ok.body.json.name == "The Client Arms")
            let read = try await client.getVenue(path: .init(venueId: "client-arms")).ok.body.json
            #expect(read.timezone == "Australia/Sydney")
            #expect(read.category == "Pub")
            #expect(read.checkins == 0)
            #expect(read.level == nil)
            // The README's example, but for the server and the venue.
            let readme = Client(serverURL: URL(string: "http://localhost:\(try #require(server.port))")!)
            let example = try await readme.getVenue(path: .init(venueId: "client-arms")).ok.body.json
            #expect("\(example.name) \(example.label ?? "not judged yet")" == "The Client Arms not judged yet")

            let id = UUID().uuidString.lowercased()
            let start = Date().addingTimeInterval(-120).timeIntervalSince1970.rounded(.down)
            let samples = (0..<12).map {
                Components.Schemas.Sample(
                    t: Date(timeIntervalSince1970: start + Double($0)), average: -31 - Double($0 % 3), peak: -18)
            }
            let checkin = Components.Schemas.CheckinInput(
                id: id, venue: .init(id: "client-arms"), device: .init(id: "client-phone-0001", model: "iPhone15,2"),
                location: .init(latitude: -33.8689, longitude: 151.2094, accuracy: 20), unit: .dbfs, samples: samples)
            let receipt = try await client.postCheckin(body: .json(checkin)).created.body.json
            #expect(receipt.id == id)
            #expect(receipt.sampleCount == 12)
            #expect(try await client.postCheckin(body: .json(checkin)).ok.body.json.id == id, "a resend is 200")

            let refused = try await client.postCheckin(
                body: .json(
                    .init(
                        id: UUID().uuidString, venue: .init(id: "client-arms"), device: .init(id: "x"),
                        samples: Array(samples.prefix(9)))))
            let problem = try refused.unprocessableContent.body.applicationProblemJson
            #expect(problem.errors?.map(\.pointer) == ["/samples"])

            let stored = try await client.getCheckin(path: .init(id: id)).ok.body.json
            #expect(stored.startedAt == Date(timeIntervalSince1970: start))
            #expect(stored.device.model == "iPhone15,2")
            #expect(try await Self.offsets(of: id, in: database) == [660], "times went out at +11:00")
            #expect(try await client.getBands().ok.body.json.bands.isEmpty == false)
        }
    }

    @Test("hearclear meter --submit posts the metered seconds as they were written, and prints the answer")
    func meterSubmit() async throws {
        let audio = try TestAudio.sine(dBFS: -30, seconds: 12, sampleRate: 8000)
        let start = RFC3339.format(
            secondsSince1970: Date().addingTimeInterval(-180).timeIntervalSince1970.rounded(.down), offsetMinutes: -210)

        try await MeterServer.withLive { server, database in
            let url = "http://localhost:\(try #require(server.port))"
            try await withScratchDirectory { scratch in
                let file = scratch.appendingPathComponent("bar.wav")
                try audio.write(to: file)
                let submit = [
                    "meter", file.path, "--start", start, "--submit", "--url", url, "--venue", "client-meter-venue",
                    "--device", "recorder-0001", "--model", "Zoom H5", "--wait", "5",
                ]
                let refused = try await HearClearCommand.run(submit, scratch: scratch)
                #expect(refused.status != 0)
                #expect(refused.errors.contains("the server refused the check-in: 422"))
                #expect(refused.errors.contains("/venue/name: is required"))

                let result = try await HearClearCommand.run(
                    submit + [
                        "--venue-name", "The Meter Bar", "--latitude", "47.56", "--longitude", "-52.71", "--json",
                    ],
                    scratch: scratch)
                #expect(result.status == 0, "\(result.errors)")
                // --json prints the server's own answer: the check-in, judged or still pending.
                let answer = try #require(
                    try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any])
                let id = try #require(answer["id"] as? String)
                #expect(answer["venue"] as? String == "client-meter-venue")
                #expect(answer["sampleCount"] as? Int == 12)
                #expect(answer["status"] is String)

                let loudness = Engine.testing(database).loudness
                let rows = try await database.query(
                    """
                    SELECT id, source, sample_count, COALESCE(utc_offsets_min, ARRAY[utc_offset_min]), started_at
                    FROM checkins WHERE id = \(UUID(uuidString: id)!)
                    """
                )
                var found = 0
                for try await (storedID, source, count, zones, startedAt) in rows.decode(
                    (UUID, String, Int, [Int16], Date).self)
                {
                    let stored = try await loudness.storedCheckin(id: storedID)
                    let averages = try #require(stored).averageDBFS
                    found += 1
                    #expect(source == "v2")
                    #expect(count == 12)
                    #expect(averages.allSatisfy { abs($0 - -33.01) < 0.02 }, "\(averages)")
                    #expect(zones == [-210], "the --start offset, -03:30, on every second")
                    #expect(startedAt == RFC3339.parse(start)?.date)
                }
                #expect(found == 1)
            }
        }
    }

    @Test(
        "meter --submit --with-spectra sends the A-weighted level as average, LCeq and the bands below Nyquist; the server stores them"
    )
    func meterSubmitWithSpectra() async throws {
        // A 1 kHz sine at -30 dBFS peak: its RMS is 20·log10(10^(-30/20)/√2) = -33.01 dBFS (by hand),
        // and A- and C-weighting are both 0 dB at 1 kHz, so average (LAeq) ≈ lceq ≈ the 1 kHz band.
        let audio = try TestAudio.sine(dBFS: -30, seconds: 12, sampleRate: 8000)
        let start = RFC3339.format(
            secondsSince1970: Date().addingTimeInterval(-180).timeIntervalSince1970.rounded(.down), offsetMinutes: 0)
        try await MeterServer.withLive { server, database in
            let url = "http://localhost:\(try #require(server.port))"
            try await withScratchDirectory { scratch in
                let file = scratch.appendingPathComponent("tone.wav")
                try audio.write(to: file)
                let metered = try await HearClearCommand.run(["meter", file.path, "--json"], scratch: scratch)
                #expect(metered.status == 0, "\(metered.errors)")
                let report = try #require(
                    try JSONSerialization.jsonObject(with: Data(metered.output.utf8)) as? [String: Any])
                let samples = try #require(report["samples"] as? [[String: Any]])
                let aWeighted = samples.compactMap { $0["aWeighted"] as? Double }
                #expect(aWeighted.count == 12)
                let bandKeys = Set((samples.first?["bands"] as? [String: Double] ?? [:]).keys)

                let result = try await HearClearCommand.run(
                    [
                        "meter", file.path, "--start", start, "--submit", "--with-spectra", "--url", url, "--venue",
                        "spectra-venue", "--venue-name", "The Tone Room", "--latitude", "47.56", "--longitude",
                        "-52.71", "--device", "recorder-0002", "--json",
                    ], scratch: scratch)
                #expect(result.status == 0, "\(result.errors)")
                let answer = try #require(
                    try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any])
                let id = try #require((answer["id"] as? String).flatMap(UUID.init(uuidString:)))

                var found = 0
                if let samples = try await Engine.testing(database).loudness.storedCheckin(id: id) {
                    let averages = samples.averageDBFS
                    let lceq = try #require(samples.lceqDdB)
                    let bandIndexes = try #require(samples.bandIndexes)
                    let bands = try #require(samples.bandsDdB)
                    found += 1
                    // average is the meter's A-weighted level, not its RMS.
                    #expect(averages.count == 12)
                    for (stored, metered) in zip(averages, aWeighted) {
                        #expect(abs(Double(stored) - metered) < 0.01, "\(stored) vs \(metered)")
                    }
                    #expect(averages.allSatisfy { abs($0 - -33.01) < 0.3 }, "\(averages)")
                    #expect(lceq.count == 12)
                    #expect(
                        zip(lceq, averages).allSatisfy { abs(Double($0) / 10 - Double($1)) < 0.3 },
                        "\(lceq) \(averages)")
                    // The bands the meter measured at 8 kHz (upper edge at or below 4 kHz), each stored.
                    let centres = bandIndexes.map { ThirdOctaveBands.nominalCentresHz[Int($0)] }
                    #expect(Set(centres.map(String.init)) == bandKeys)
                    #expect(centres.contains(1000) && !centres.contains(4000), "\(centres)")
                    #expect(bands.count == 12 * bandIndexes.count)
                    let kilohertz = try #require(centres.firstIndex(of: 1000))
                    for second in 0..<12 {
                        let level = Double(bands[second * bandIndexes.count + kilohertz]) / 10
                        #expect(abs(level - -33.01) < 0.5, "second \(second): \(level)")
                    }
                }
                #expect(found == 1)
            }
        }
    }

    static func offsets(of id: String, in database: PostgresClient) async throws -> [Int16] {
        let rows = try await database.query(
            "SELECT COALESCE(utc_offsets_min, ARRAY[utc_offset_min]) FROM checkins WHERE id = \(UUID(uuidString: id)!)")
        for try await zones in rows.decode([Int16].self) { return zones }
        return []
    }
}
