import Foundation
import HTTPTypes
import HearClearCLI
import HearClearClient
import HearClearEngine
import OpenAPIRuntime

/// `hearclear meter --submit`: posts the metered samples as a v2 check-in through HearClearClient,
/// then waits up to `--wait` seconds for the server's judgement and prints it.
struct CheckinUpload {
    let options: SubmitOptions
    let printJSON: Bool

    func submit(_ report: MeterReport) async throws {
        let id = UUID().uuidString.lowercased()
        let checkin = try CheckinUploadBody.make(id: id, report: report, options: options)
        guard let url = URL(string: baseURL) else { throw CommandFailure("--url \(baseURL) is not a URL") }
        let client = Client(
            serverURL: url, timeZone: CheckinUploadBody.timeZone(of: report), middlewares: [AnswerCapture()])
        let (output, answer) = try await call { try await client.postCheckin(body: .json(checkin)) }
        let receipt: Components.Schemas.Receipt
        switch output {
        case .created(let created): receipt = try created.body.json
        case .ok(let ok): receipt = try ok.body.json
        default:
            if printJSON, let answer { print(String(decoding: answer.body, as: UTF8.self)) }
            throw CommandFailure(Self.refusal(answer))
        }
        if !printJSON {
            print("check-in \(id) sent to \(baseURL): \(answer?.statusLine ?? "201 Created")")
        }
        let (judged, judgedJSON) = try await awaitJudgement(
            id: id, receipt: (Judgement(receipt), answer?.body ?? Data()), client: client)
        if printJSON {
            print(String(decoding: judgedJSON, as: UTF8.self))
        } else {
            print(Self.describe(judged, waited: options.wait))
            print("see: \(baseURL)/api/v2/checkins/\(id)")
        }
    }

    private var baseURL: String {
        let url = options.url ?? ""
        return url.hasSuffix("/") ? String(url.dropLast()) : url
    }

    /// Polls `GET /api/v2/checkins/{id}` until the status is no longer `pending` or `--wait` passes.
    private func awaitJudgement(id: String, receipt: (Judgement, Data), client: Client) async throws
        -> (Judgement, Data)
    {
        var latest = receipt
        let deadline = ContinuousClock.now + .milliseconds(Int(options.wait * 1000))
        while latest.0.status == "pending", ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(250))
            let (output, answer) = try await call { try await client.getCheckin(path: .init(id: id)) }
            guard case .ok(let ok) = output else { break }
            latest = (Judgement(try ok.body.json), answer?.body ?? Data())
        }
        return latest
    }

    /// Runs one call of the client, with its answer; a failure to reach the server or to read its
    /// answer is told without the request the client's error repeats (thousands of samples).
    private func call<T>(_ operation: () async throws -> T) async throws -> (T, AnswerCapture.Answer?) {
        do {
            return try await AnswerCapture.capture(operation)
        } catch let error as ClientError {
            throw CommandFailure(
                error.response == nil
                    ? "cannot reach \(baseURL): \(error.underlyingError)"
                    : "cannot read the answer of \(baseURL) to \(error.operationID): \(error.underlyingError)")
        }
    }

    /// What `describe` tells of a receipt or a judged check-in.
    struct Judgement {
        var status: String
        var reasons: [String]
        var sampleCount: Int
        var validSeconds: Int?
        var levelDBFS: Double?

        init(_ receipt: Components.Schemas.Receipt) {
            status = receipt.status.rawValue
            reasons = receipt.reasons
            sampleCount = receipt.sampleCount
        }

        init(_ checkin: Components.Schemas.Checkin) {
            status = checkin.status.rawValue
            reasons = checkin.reasons
            sampleCount = checkin.sampleCount
            validSeconds = checkin.validSeconds
            levelDBFS = checkin.levelDBFS
        }
    }

    /// A problem document as lines: status, title, detail, then each field error.
    static func refusal(_ answer: AnswerCapture.Answer?) -> String {
        guard let answer else { return "the server refused the check-in" }
        let problem = try? JSONDecoder().decode(Components.Schemas.Problem.self, from: answer.body)
        var text = "the server refused the check-in: "
        text += problem.map { "\(answer.status.code) \($0.title)" } ?? answer.statusLine
        if let detail = problem?.detail { text += ": \(detail)" }
        for error in problem?.errors ?? [] {
            text += "\n  \(error.pointer): \(error.detail)"
        }
        return text
    }

    static func describe(_ checkin: Judgement, waited: Double) -> String {
        var text = "judgement: \(checkin.status)"
        if !checkin.reasons.isEmpty { text += " (\(checkin.reasons.joined(separator: ", ")))" }
        if checkin.status == "pending" {
            text += String(format: "; not judged yet after %.0f s", waited)
        }
        text += "\nsamples: \(checkin.sampleCount)"
        if let valid = checkin.validSeconds { text += ", \(valid) valid" }
        if let level = checkin.levelDBFS { text += String(format: "\nlevel: %.1f dBFS", level) }
        return text
    }
}
