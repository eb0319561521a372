import Foundation
import HearClearEngine
import HearClearHTTP
import HearClearModel
import Hummingbird
import Metrics

/// `POST /api/v2/checkins` and `GET /api/v2/checkins/{id}`.
struct CheckinsController {
    let intake: CheckinIntake
    let loudness: LoudnessReads
    let reads: CachedReads
    /// The per-device check-in limit (the per-address one is a middleware).
    let limiter: RateLimiter

    func addRoutes(to group: RouterGroup<AppRequestContext>) {
        group.post("checkins", use: create)
        group.get("checkins/{id}", use: get)
    }

    @Sendable func create(_ request: Request, context: AppRequestContext) async throws -> Response {
        let body = try await JSONBody.decode(CheckinRequest.self, from: request) { CheckinFastParser.parse($0) }
        let submission = try CheckinValidator(now: Date()).validate(body)
        let checkin = intake.keyed(submission)
        let outcome = try await limiter.admitCheckin(device: checkin.device, context: context) {
            try await UnknownVenueProblem.answering { try await intake.submit(checkin) }
        }
        switch outcome {
        case .created(let receipt):
            IngestMetrics.checkins.increment()
            IngestMetrics.samples.increment(by: receipt.sampleCount)
            return try JSONResponse.make(
                ReceiptBody(receipt), status: .created,
                headers: [.location: "/api/v2/checkins/\(receipt.id.uuidString.lowercased())"]
            )
        case .duplicate(let receipt):
            return try JSONResponse.make(ReceiptBody(receipt))
        case .conflict(let id):
            throw Problem(
                .conflict, type: "conflict", title: "A different check-in has this id",
                detail:
                    "check-in \(id.uuidString.lowercased()) was already received with other content; make a new id for a new check-in",
                errors: [.init("/id", "is already used by a check-in with other content")]
            )
        }
    }

    @Sendable func get(_ request: Request, context: AppRequestContext) async throws -> Response {
        let raw = context.parameters.get("id") ?? ""
        guard let id = UUID(uuidString: raw) else {
            throw Problem.malformed("the check-in id in the path must be a UUID")
        }
        guard let judged = try await loudness.checkin(id: id, bands: reads.currentBands) else {
            throw Problem.notFound("no check-in with id \(raw)")
        }
        return try JSONResponse.make(CheckinBody(checkin: judged.checkin, level: judged.levelDB, label: judged.label))
    }
}

/// Counters of what ingest stored (first receipts only).
enum IngestMetrics {
    static let checkins = Counter(label: "hearclear_checkins_stored_total")
    static let samples = Counter(label: "hearclear_samples_stored_total")
}
