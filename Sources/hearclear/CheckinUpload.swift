import AsyncHTTPClient
import Foundation
import HearClearEngine
import NIOCore
import NIOHTTP1

/// `hearclear meter --submit`: posts the metered samples as a v2 check-in, then waits up to
/// `--wait` seconds for the server's judgement and prints it.
struct CheckinUpload {
    let options: SubmitOptions
    let printJSON: Bool

    func submit(_ report: MeterReport) async throws {
        let id = UUID()
        let body = try JSONEncoder().encode(CheckinUploadBody(id: id, report: report, options: options))
        let client = HTTPClient(eventLoopGroupProvider: .singleton)
        do {
            try await submit(body, id: id, client: client)
            try await client.shutdown()
        } catch {
            try? await client.shutdown()
            throw error
        }
    }

    private var baseURL: String {
        let url = options.url ?? ""
        return url.hasSuffix("/") ? String(url.dropLast()) : url
    }

    private func submit(_ body: Data, id: UUID, client: HTTPClient) async throws {
        var request = HTTPClientRequest(url: baseURL + "/api/v2/checkins")
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/json")
        request.body = .bytes(ByteBuffer(bytes: body))
        let (status, answer) = try await send(request, client: client)
        guard status == .created || status == .ok else {
            if printJSON { print(String(decoding: answer, as: UTF8.self)) }
            throw CommandFailure(Self.refusal(status, answer))
        }
        let receipt = Self.object(answer)
        if !printJSON {
            print("check-in \(id.uuidString.lowercased()) sent to \(baseURL): \(status.code) \(status.reasonPhrase)")
        }
        let (judged, judgement) = try await awaitJudgement(id: id, receipt: (answer, receipt), client: client)
        if printJSON {
            print(String(decoding: judged, as: UTF8.self))
        } else {
            print(Self.describe(judgement, waited: options.wait))
            print("see: \(baseURL)/api/v2/checkins/\(id.uuidString.lowercased())")
        }
    }

    /// Polls `GET /api/v2/checkins/{id}` until the status is no longer `pending` or `--wait` passes.
    private func awaitJudgement(id: UUID, receipt: (Data, [String: Any]), client: HTTPClient) async throws
        -> (Data, [String: Any])
    {
        var latest = receipt
        let deadline = ContinuousClock.now + .milliseconds(Int(options.wait * 1000))
        while latest.1["status"] as? String == "pending", ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(250))
            let request = HTTPClientRequest(url: baseURL + "/api/v2/checkins/\(id.uuidString.lowercased())")
            let (status, answer) = try await send(request, client: client)
            guard status == .ok else { break }
            latest = (answer, Self.object(answer))
        }
        return latest
    }

    private func send(_ request: HTTPClientRequest, client: HTTPClient) async throws -> (HTTPResponseStatus, Data) {
        do {
            let response = try await client.execute(request, timeout: .seconds(30))
            let body = try await response.body.collect(upTo: 4 << 20)
            return (response.status, Data(body.readableBytesView))
        } catch {
            throw CommandFailure("cannot reach \(baseURL): \(error)")
        }
    }

    private static func object(_ data: Data) -> [String: Any] {
        (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] ?? [:]
    }

    /// A problem document as lines: status, title, detail, then each field error.
    static func refusal(_ status: HTTPResponseStatus, _ answer: Data) -> String {
        let problem = object(answer)
        var text =
            "the server refused the check-in: \(status.code) \(problem["title"] as? String ?? status.reasonPhrase)"
        if let detail = problem["detail"] as? String { text += ": \(detail)" }
        for error in problem["errors"] as? [[String: Any]] ?? [] {
            text += "\n  \(error["pointer"] as? String ?? ""): \(error["detail"] as? String ?? "")"
        }
        return text
    }

    static func describe(_ checkin: [String: Any], waited: Double) -> String {
        let status = checkin["status"] as? String ?? "unknown"
        let reasons = checkin["reasons"] as? [String] ?? []
        var text = "judgement: \(status)"
        if !reasons.isEmpty { text += " (\(reasons.joined(separator: ", ")))" }
        if status == "pending" {
            text += String(format: "; not judged yet after %.0f s", waited)
        }
        if let samples = checkin["sampleCount"] as? Int {
            text += "\nsamples: \(samples)"
            if let valid = checkin["validSeconds"] as? Int { text += ", \(valid) valid" }
        }
        if let level = checkin["levelDBFS"] as? Double { text += String(format: "\nlevel: %.1f dBFS", level) }
        return text
    }
}
