import AudioTestSupport
import Foundation
import HTTPTypes
import HearClearHTTP
import HearClearModel
import HearClearServerTestSupport
import HearClearTestSupport
import HummingbirdTesting
import LoudnessCore
import NIOCore
import PostgresNIO
import Testing

@testable import HearClearAdmin
@testable import HearClearEngine
@testable import HearClearServer

/// `/farmer/models` on the admin data set (models `iPhone15,2` for devices A–C, `Pixel 8` for D,
/// `SM-G991B` for E): the page, overrides, tone and meter calibrations from uploads, withdrawing,
/// fitting now, and the refusals that change nothing.
@Suite("Admin phone models")
struct AdminModelsTests {
    static let iPhone = "iPhone15,2"
    static let pixel = "Pixel 8"
    /// The test server's reference offset (the default, 110 dB).
    static let referenceOffsetDB = testConfiguration().referenceOffsetDB

    static func models(_ database: PostgresClient) async throws -> [String: ModelCalibration] {
        let models = try await Engine.testing(database).calibrator.models()
        return Dictionary(uniqueKeysWithValues: models.map { ($0.model, $0) })
    }

    static func references(_ database: PostgresClient) async throws -> [ReferenceCalibration] {
        try await Engine.testing(database).calibrator.references(model: nil)
    }

    /// (action, subject) of every audit entry about models, oldest first.
    static func audit(_ database: PostgresClient) async throws -> [(String, String?)] {
        let rows = try await database.query(
            "SELECT action, subject FROM admin_audit_log WHERE action LIKE 'model%' ORDER BY id", logger: testLogger)
        var entries: [(String, String?)] = []
        for try await (action, subject) in rows.decode((String, String?).self) { entries.append((action, subject)) }
        return entries
    }

    /// A calibrator's 1 kHz tone whose RMS is −26 dBFS (`TestAudio.sine` takes the peak level).
    static func tone(seconds: Double = 3) throws -> Data {
        try TestAudio.sine(dBFS: -26 + ToneCalibrationEndpointTests.crestDB, seconds: seconds)
    }

    /// Three seconds of white noise, uniform in ±0.1 (a fixed linear congruential sequence).
    static func noise() throws -> Data {
        var state: UInt32 = 12345
        let samples = (0..<(48000 * 3)).map { _ -> Float in
            state = state &* 1_664_525 &+ 1_013_904_223
            return (Float(state >> 8) / Float(1 << 24) - 0.5) * 0.2
        }
        return try TestAudioEncoder.encode(samples, channels: 1, sampleRate: 48000, format: TestAudio.wav16)
    }

    /// A meter's log of `checkin`: its seconds, each its level + `offset` dB.
    static func meterLog(_ checkin: CheckinFixture, offset: Double) -> String {
        let rows = (0..<checkin.seconds).map { second in
            let level = checkin.levelDBFS + SubmissionFixture.wobbleDB[second % SubmissionFixture.wobbleDB.count]
            return RFC3339.format(checkin.start.addingTimeInterval(Double(second))) + ","
                + String(format: "%.3f", level + offset)
        }
        return (["time,level"] + rows).joined(separator: "\r\n") + "\r\n"
    }

    // MARK: - The page

    @Test("the page lists every model that checked in, with its devices, and is linked from the navigation")
    func page() async throws {
        try await withRouterApp { client, database in
            _ = try await AdminDataSet.make(client, database)
            var browser = try await AdminBrowser.signedIn(client)

            let response = try await browser.get("/farmer/models")
            let html = response.body.string
            let dashboard = try await browser.get("/farmer/dashboard").body.string

            #expect(response.status == .ok)
            for model in [Self.iPhone, Self.pixel, "SM-G991B"] { #expect(html.contains("<code>\(model)</code>")) }
            #expect(html.contains(#"<a href="/farmer/models" aria-current="page">Models</a>"#))
            #expect(dashboard.contains(#"<a href="/farmer/models">Models</a>"#))
            #expect(html.contains("No fit yet"))
            #expect(html.contains("not in the latest fit"))
            #expect(
                html.contains("server’s reference offset of +110.00 dB")
                    || html.contains("reference offset of +110.00 dB"))
            #expect(html.contains(#"enctype="multipart/form-data""#))
            #expect(html.contains(#"<td class="num">3</td>"#), "three iPhone15,2 devices")
            for device in AdminDataSet.allDevices { #expect(!html.contains(String(device.prefix(12)))) }
        }
    }

    @Test("fit now: a fit is stored and shown; too little evidence says so; audited")
    func fitNow() async throws {
        try await withRouterApp { client, database in
            _ = try await AdminDataSet.make(client, database)
            var browser = try await AdminBrowser.signedIn(client)
            let csrf = try await browser.csrf(on: "/farmer/models")

            let fitted = try await browser.post("/farmer/models/fit", ["csrf": csrf])
            let html = try await browser.get(fitted.headers[.location] ?? "/farmer/models").body.string
            let fit = try await Engine.testing(database).calibrator.latestFit()

            #expect(fitted.status == .seeOther)
            #expect(fitted.headers[.location] == "/farmer/models?done=fitted")
            let id = try #require(fit?.id)
            #expect(html.contains("#\(id), "))
            #expect(html.contains("Fitted. Venues whose offsets moved are being judged again."))
            #expect(html.contains("too little evidence"), "three co-located check-ins of the 10 a model needs")
            #expect(try await database.count("admin_audit_log", where: "action = 'models fitted'") == 1)
        }
    }

    // MARK: - Overrides

    @Test("an override is in force with source override, shown with its note, audited; undo removes it")
    func override() async throws {
        try await withRouterApp { client, database in
            _ = try await AdminDataSet.make(client, database)
            var browser = try await AdminBrowser.signedIn(client)
            let csrf = try await browser.csrf(on: "/farmer/models")
            // A first fit settles the devices' trust (which queues the venues whose weights it
            // moved); the override then moves only the Pixel's offset.
            try await Calibrator(client: database, referenceOffsetDB: 110, logger: testLogger).refit()
            try await database.query("DELETE FROM aggregation_queue")

            let set = try await browser.post(
                "/farmer/models/override",
                ["csrf": csrf, "model": Self.pixel, "offsetDb": "-2,5", "note": "bench test"])
            let during = try await Self.models(database)[Self.pixel]
            let shown = try await browser.get(set.headers[.location] ?? "/farmer/models").body.string
            let queued = try await database.count("aggregation_queue")
            let undone = try await browser.post("/farmer/models/override/remove", ["csrf": csrf, "model": Self.pixel])
            let after = try await Self.models(database)[Self.pixel]
            let again = try await browser.post("/farmer/models/override/remove", ["csrf": csrf, "model": Self.pixel])

            #expect(set.status == .seeOther)
            #expect(set.headers[.location] == "/farmer/models?done=override")
            #expect(during?.inForce?.offsetDB == -2.5)
            #expect(during?.inForce?.source == .override)
            #expect(during?.override?.note == "bench test")
            #expect(during?.override?.setBy == AdminTestCredentials.user)
            #expect(queued == 1, "the Arms, where the Pixel checked in, is queued to be judged again")
            #expect(shown.contains("Override set."))
            #expect(shown.contains("−2.50 dB") && shown.contains("bench test") && shown.contains("Undo override"))
            #expect(undone.headers[.location] == "/farmer/models?done=removed")
            #expect(after?.override == nil)
            #expect(after?.inForce == nil)
            #expect(again.headers[.location] == "/farmer/models?done=unchanged")
            let audit = try await Self.audit(database)
            #expect(audit.map(\.0) == ["model override set", "model override removed"])
            #expect(audit.map(\.1) == [Self.pixel, Self.pixel])
        }
    }

    @Test(
        "a bad override gives the page back with why, and changes nothing",
        arguments: [
            (["model": "Pixel 8", "offsetDb": "loud"], "is not an offset from −60 to 60 dB"),
            (["model": "Pixel 8", "offsetDb": "60.5"], "is not an offset from −60 to 60 dB"),
            (["model": "Pixel 8", "offsetDb": "nan"], "is not an offset from −60 to 60 dB"),
            (["model": "Pixel 8", "offsetDb": ""], "Give the override’s offset"),
            (["model": "", "offsetDb": "1"], "Choose a phone model."),
            (["model": "Nokia 3310", "offsetDb": "1"], "There is no phone model “Nokia 3310”"),
            (["model": "Pixel 8", "offsetDb": "1", "note": String(repeating: "n", count: 201)], "at most 200"),
        ])
    func overrideRefused(fields: [String: String], message: String) async throws {
        try await withRouterApp { client, database in
            _ = try await AdminDataSet.make(client, database)
            var browser = try await AdminBrowser.signedIn(client)
            let csrf = try await browser.csrf(on: "/farmer/models")

            let response = try await browser.post(
                "/farmer/models/override", [("csrf", csrf)] + fields.sorted { $0.key < $1.key })

            #expect(response.status == .unprocessableContent)
            let html = response.body.string
            #expect(html.contains(#"<div class="error" role="alert">"#))
            #expect(html.contains(message.replacingOccurrences(of: "’", with: "&#39;")) || html.contains(message))
            #expect(try await database.count("model_offset_overrides") == 0)
            #expect(try await Self.audit(database).isEmpty)
        }
    }

    // MARK: - Tone calibration

    @Test("a 1 kHz tone at −26 dBFS with 94 dB records a tone reference of 120.0 and puts the model at 120 − 110")
    func tone() async throws {
        try await withRouterApp { client, database in
            _ = try await AdminDataSet.make(client, database)
            var browser = try await AdminBrowser.signedIn(client)
            let csrf = try await browser.csrf(on: "/farmer/models")
            let audio = try Self.tone(seconds: 12)

            let response = try await browser.upload(
                "/farmer/models/tone", fields: [("csrf", csrf), ("model", Self.iPhone), ("referenceDb", "94")],
                file: ("recording", "calibrator.wav", "audio/wav", audio))
            let references = try await Self.references(database)
            let model = try await Self.models(database)[Self.iPhone]
            let queued = try await database.count("aggregation_queue")
            let shown = try await browser.get(response.headers[.location] ?? "/farmer/models").body.string

            #expect(audio.count > BodyLimits.wireBytes, "the upload route has the meter's 50 MiB limit")
            #expect(response.status == .seeOther)
            let reference = try #require(references.first)
            #expect(references.count == 1)
            #expect(response.headers[.location] == "/farmer/models?done=tone&reference=\(reference.id)")
            #expect(reference.model == Self.iPhone)
            #expect(reference.method == .tone)
            #expect(abs(reference.absoluteOffsetDB - 120) <= 0.1, "absolute offset \(reference.absoluteOffsetDB)")
            #expect(reference.createdBy == AdminTestCredentials.user)
            let detail = try #require(
                try JSONSerialization.jsonObject(with: Data(reference.detail.utf8)) as? [String: Any])
            #expect(Set(detail.keys) == ["frequencyHz", "levelDbfs", "snrDb", "seconds", "referenceDb"])
            #expect(detail["frequencyHz"] as? Double == 1000)
            #expect(detail["referenceDb"] as? Double == 94)
            #expect(detail["seconds"] as? Double == 12)
            #expect(abs((detail["levelDbfs"] as? Double ?? 0) - -26) <= 0.1)
            let inForce = try #require(model?.inForce)
            #expect(abs(inForce.offsetDB - (120 - Self.referenceOffsetDB)) <= 0.1, "in force \(inForce.offsetDB)")
            #expect(inForce.source == .reference)
            #expect(queued == 2, "both venues with iPhone15,2 check-ins are queued to be judged again")
            #expect(shown.contains("Tone calibration #\(reference.id) recorded for iPhone15,2"))
            #expect(shown.contains("1000.0 Hz at −26.00 dBFS"))
            #expect(
                shown.contains("(model +10.00 dB)") || shown.contains("(model +9.9") || shown.contains("(model +10.0"))
            #expect(shown.contains("Withdraw #\(reference.id)"))
            let audit = try await Self.audit(database)
            #expect(audit.map(\.0) == ["model tone calibration"])
            #expect(audit.map(\.1) == [Self.iPhone])
        }
    }

    @Test("noise, a missing recording or a bad calibrator level is refused with why; nothing is recorded")
    func toneRefused() async throws {
        try await withRouterApp { client, database in
            _ = try await AdminDataSet.make(client, database)
            var browser = try await AdminBrowser.signedIn(client)
            let csrf = try await browser.csrf(on: "/farmer/models")
            let fields = [("csrf", csrf), ("model", Self.iPhone), ("referenceDb", "94")]

            let noise = try await browser.upload(
                "/farmer/models/tone", fields: fields, file: ("recording", "noise.wav", "audio/wav", try Self.noise()))
            let empty = try await browser.upload(
                "/farmer/models/tone", fields: fields, file: ("recording", "", "application/octet-stream", Data()))
            let level = try await browser.upload(
                "/farmer/models/tone", fields: [("csrf", csrf), ("model", Self.iPhone), ("referenceDb", "200")],
                file: ("recording", "tone.wav", "audio/wav", try Self.tone()))
            let unknown = try await browser.upload(
                "/farmer/models/tone", fields: [("csrf", csrf), ("model", "Nokia 3310"), ("referenceDb", "94")],
                file: ("recording", "tone.wav", "audio/wav", try Self.tone()))
            let garbage = try await browser.upload(
                "/farmer/models/tone", fields: fields,
                file: ("recording", "x.wav", "audio/wav", Data((0..<4096).map { UInt8(truncatingIfNeeded: $0 &* 37) })))

            for response in [noise, empty, level, unknown, garbage] {
                #expect(response.status == .unprocessableContent)
                #expect(response.body.string.contains(#"<div class="error" role="alert">"#))
            }
            #expect(noise.body.string.contains("No clean calibration tone: noise"))
            #expect(noise.body.string.contains("Nothing was recorded."))
            #expect(empty.body.string.contains("Choose the recording of the calibrator to upload."))
            #expect(level.body.string.contains("is not a calibrator level from 40 to 140 dB SPL"))
            #expect(level.body.string.contains(#"value="200""#), "what was typed is shown again")
            #expect(unknown.body.string.contains("There is no phone model"))
            #expect(garbage.body.string.contains("The audio could not be read: libsndfile"))
            #expect(try await database.count("reference_calibrations") == 0)
            #expect(try await database.count("calibration_fits") == 0)
            #expect(try await Self.audit(database).isEmpty)
        }
    }

    // MARK: - Meter calibration

    @Test("a meter log 112 dB above a stored check-in records a meter reference of 112.0 for its model")
    func meter() async throws {
        try await withRouterApp { client, database in
            let set = try await AdminDataSet.make(client, database)
            var browser = try await AdminBrowser.signedIn(client)
            let csrf = try await browser.csrf(on: "/farmer/models")
            let log = Self.meterLog(set.a, offset: 112)

            let response = try await browser.upload(
                "/farmer/models/meter", fields: [("csrf", csrf), ("checkin", set.a.id.uuidString.lowercased())],
                file: ("log", "meter.csv", "text/csv", Data(log.utf8)))
            let references = try await Self.references(database)
            let shown = try await browser.get(response.headers[.location] ?? "/farmer/models").body.string

            #expect(response.status == .seeOther)
            let reference = try #require(references.first)
            #expect(references.count == 1)
            #expect(reference.method == .meter)
            #expect(reference.model == Self.iPhone)
            #expect(abs(reference.absoluteOffsetDB - 112) <= 0.01, "absolute offset \(reference.absoluteOffsetDB)")
            let detail = try #require(
                try JSONSerialization.jsonObject(with: Data(reference.detail.utf8)) as? [String: Any])
            #expect(detail["checkinId"] as? String == set.a.id.uuidString.lowercased())
            #expect(detail["seconds"] as? Int == set.a.seconds)
            #expect((detail["spreadDb"] as? Double ?? 1) < 0.01)
            #expect(try await Self.models(database)[Self.iPhone]?.inForce?.source == .reference)
            #expect(shown.contains("Meter calibration #\(reference.id) recorded for iPhone15,2"))
            #expect(shown.contains("120 seconds beside the meter"))
            #expect(try await Self.audit(database).map(\.0) == ["model meter calibration"])
        }
    }

    @Test("an unknown check-in, a bad id, a bad or too large log is refused with why; nothing is recorded")
    func meterRefused() async throws {
        try await withRouterApp { client, database in
            let set = try await AdminDataSet.make(client, database)
            var browser = try await AdminBrowser.signedIn(client)
            let csrf = try await browser.csrf(on: "/farmer/models")
            let log = Data(Self.meterLog(set.a, offset: 112).utf8)
            let id = set.a.id.uuidString.lowercased()
            func upload(_ checkin: String, _ data: Data) async throws -> TestResponse {
                try await browser.upload(
                    "/farmer/models/meter", fields: [("csrf", csrf), ("checkin", checkin)],
                    file: ("log", "meter.csv", "text/csv", data))
            }

            let unknown = try await upload(UUID().uuidString, log)
            let badID = try await upload("not-a-uuid", log)
            let badLog = try await upload(id, Data("time,level\n2026-13-45T00:00:00Z,80\n".utf8))
            let elsewhere = try await upload(id, Data("2001-01-01T00:00:00Z,80\n2001-01-01T00:00:01Z,80\n".utf8))
            let large = try await upload(id, Data(repeating: UInt8(ascii: "x"), count: ModelsForm.maximumLogBytes + 1))

            #expect(unknown.status == .notFound)
            #expect(unknown.body.string.contains("No meter calibration: no check-in has that id."))
            #expect(badID.status == .unprocessableContent)
            #expect(badID.body.string.contains("is not a check-in id (a UUID)"))
            #expect(badLog.status == .unprocessableContent)
            #expect(badLog.body.string.contains("line 2"))
            #expect(elsewhere.status == .unprocessableContent)
            #expect(elsewhere.body.string.contains("No meter calibration"))
            #expect(large.status == .unprocessableContent)
            #expect(large.body.string.contains("at most 8 MiB"))
            #expect(try await database.count("reference_calibrations") == 0)
            #expect(try await Self.audit(database).isEmpty)
        }
    }

    // MARK: - Withdrawing

    @Test("withdrawing a reference takes it out of force, keeps it listed as withdrawn, and is audited")
    func withdraw() async throws {
        try await withRouterApp { client, database in
            _ = try await AdminDataSet.make(client, database)
            var browser = try await AdminBrowser.signedIn(client)
            let csrf = try await browser.csrf(on: "/farmer/models")
            _ = try await browser.upload(
                "/farmer/models/tone", fields: [("csrf", csrf), ("model", Self.iPhone), ("referenceDb", "94")],
                file: ("recording", "calibrator.wav", "audio/wav", try Self.tone()))
            let id = try #require(try await Self.references(database).first?.id)

            let withdrawn = try await browser.post("/farmer/models/references/\(id)/withdraw", ["csrf": csrf])
            let model = try await Self.models(database)[Self.iPhone]
            let shown = try await browser.get("/farmer/models").body.string
            let again = try await browser.post("/farmer/models/references/\(id)/withdraw", ["csrf": csrf])
            let unknown = try await browser.post("/farmer/models/references/99999/withdraw", ["csrf": csrf])
            let notNumber = try await browser.post("/farmer/models/references/abc/withdraw", ["csrf": csrf])

            #expect(withdrawn.headers[.location] == "/farmer/models?done=withdrawn")
            #expect(model?.references.first?.withdrawnAt != nil)
            #expect(model?.inForce?.source != .reference)
            #expect(shown.contains("Withdrawn: #\(id) tone"))
            #expect(!shown.contains("Withdraw #\(id)"))
            #expect(again.headers[.location] == "/farmer/models?done=unchanged")
            #expect(unknown.status == .notFound)
            #expect(unknown.body.string.contains("There is no reference calibration #99999."))
            #expect(notNumber.status == .notFound)
            #expect(try await Self.audit(database).map(\.0) == ["model tone calibration", "model reference withdrawn"])
        }
    }

    // MARK: - Sign-in and CSRF

    @Test("every form needs the session's CSRF token, uploads too; a malformed upload is 400")
    func csrf() async throws {
        try await withRouterApp { client, database in
            _ = try await AdminDataSet.make(client, database)
            var browser = try await AdminBrowser.signedIn(client)
            let csrf = try await browser.csrf(on: "/farmer/models")

            let override = try await browser.post(
                "/farmer/models/override", ["model": Self.pixel, "offsetDb": "3"] as KeyValuePairs)
            let wrong = try await browser.post(
                "/farmer/models/override", ["csrf": "not-the-token", "model": Self.pixel, "offsetDb": "3"])
            let fit = try await browser.post("/farmer/models/fit", [:] as KeyValuePairs<String, String>)
            let tone = try await browser.upload(
                "/farmer/models/tone", fields: [("model", Self.iPhone), ("referenceDb", "94")],
                file: ("recording", "calibrator.wav", "audio/wav", try Self.tone()))
            let toneWrong = try await browser.upload(
                "/farmer/models/tone", fields: [("csrf", "nope"), ("model", Self.iPhone), ("referenceDb", "94")],
                file: ("recording", "calibrator.wav", "audio/wav", try Self.tone()))
            var headers = browser.cookieHeaders
            headers[.contentType] = "multipart/form-data; boundary=b"
            let unclosed = try await client.execute(
                uri: "/farmer/models/tone", method: .post, headers: headers,
                body: ByteBuffer(
                    string: "--b\r\nContent-Disposition: form-data; name=\"csrf\"\r\n\r\n\(csrf)\r\n--b\r\n"))

            for response in [override, wrong, fit, tone, toneWrong] {
                #expect(response.status == .forbidden)
            }
            #expect(unclosed.status == .badRequest)
            #expect(
                unclosed.body.string.contains("The upload could not be read: the body ends before its closing boundary")
            )
            #expect(try await database.count("model_offset_overrides") == 0)
            #expect(try await database.count("reference_calibrations") == 0)
            #expect(try await database.count("calibration_fits") == 0)
        }
    }

    @Test("without a session the page and every form redirect to the login form")
    func signedOut() async throws {
        try await withRouterApp { client, database in
            var browser = AdminBrowser(client)

            let page = try await browser.get("/farmer/models")
            var actions: [TestResponse] = []
            for action in [
                "/farmer/models/override", "/farmer/models/override/remove", "/farmer/models/fit",
                "/farmer/models/references/1/withdraw",
            ] {
                actions.append(
                    try await browser.post(action, ["csrf": "anything", "model": Self.pixel, "offsetDb": "1"]))
            }
            actions.append(
                try await browser.upload(
                    "/farmer/models/tone",
                    fields: [("csrf", "anything"), ("model", Self.iPhone), ("referenceDb", "94")],
                    file: ("recording", "calibrator.wav", "audio/wav", try Self.tone())))
            actions.append(
                try await browser.upload(
                    "/farmer/models/meter", fields: [("csrf", "anything"), ("checkin", UUID().uuidString)],
                    file: ("log", "meter.csv", "text/csv", Data("time,level\n".utf8))))

            #expect(page.status == .seeOther)
            #expect(page.headers[.location] == "/farmer?next=%2Ffarmer%2Fmodels")
            for response in actions {
                #expect(response.status == .seeOther)
                #expect(response.headers[.location] == "/farmer")
            }
            #expect(try await database.count("model_offset_overrides") == 0)
            #expect(try await database.count("calibration_fits") == 0)
        }
    }
}

extension AdminBrowser {
    /// POSTs `fields` and one file as `multipart/form-data`, as a browser sends a form with
    /// `enctype="multipart/form-data"` (CRLF lines, a random boundary).
    func upload(
        _ path: String, fields: [(String, String)], file: (name: String, filename: String, type: String, data: Data)
    ) async throws -> TestResponse {
        let boundary = "----HearClearTestBoundary" + UUID().uuidString.replacingOccurrences(of: "-", with: "")
        var body = Data()
        for (name, value) in fields {
            body += Data("--\(boundary)\r\nContent-Disposition: form-data; name=\"\(name)\"\r\n\r\n\(value)\r\n".utf8)
        }
        body += Data(
            "--\(boundary)\r\nContent-Disposition: form-data; name=\"\(file.name)\"; filename=\"\(file.filename)\"\r\n"
                .utf8)
        body += Data("Content-Type: \(file.type)\r\n\r\n".utf8)
        body += file.data
        body += Data("\r\n--\(boundary)--\r\n".utf8)
        var headers = cookieHeaders
        headers[.contentType] = "multipart/form-data; boundary=\(boundary)"
        return try await client.execute(uri: path, method: .post, headers: headers, body: ByteBuffer(data: body))
    }
}
