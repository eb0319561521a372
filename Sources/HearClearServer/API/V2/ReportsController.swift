import Foundation
import HearClearEngine
import HearClearHTTP
import HearClearModel
import Hummingbird
import LoudnessCore
import Metrics

/// `POST /api/v2/venues/{venueId}/reports` (a report of wrong data) and
/// `GET /api/v2/venues/{venueId}/reports/{reportId}` (where it stands). docs/ARCHITECTURE.md, "Reports".
struct ReportsController {
    let reports: VenueReports
    let reads: CachedReads
    /// The per-device report limit (the per-address one is a middleware).
    let limiter: RateLimiter

    func addRoutes(to group: RouterGroup<AppRequestContext>) {
        group.post("venues/{venueId}/reports", use: create)
        group.get("venues/{venueId}/reports/{reportId}", use: get)
    }

    @Sendable func create(_ request: Request, context: AppRequestContext) async throws -> Response {
        let venueID = try VenuesController.venueID(context)
        let body = try await JSONBody.decode(ReportRequest.self, from: request)
        let submission = try ReportValidator(now: Date()).validate(body, venueExternalID: venueID)
        let report = reports.keyed(submission)
        let outcome = try await limiter.admitReport(device: report.device, context: context) {
            try await reports.submit(report, bands: reads.currentBands)
        }
        switch outcome {
        case .created(let report):
            ReportMetrics.stored.increment()
            let body = ReportBody(report)
            return try JSONResponse.make(body, status: .created, headers: [.location: body.location])
        case .duplicate(let report):
            return try JSONResponse.make(ReportBody(report))
        case .conflict:
            throw Problem(
                .conflict, type: "conflict", title: "This device already reported on this venue at this time",
                detail:
                    "a report of this device about venue \(venueID) at this time was already received with another felt or comment",
                errors: [.init("/at", "already has a report from this device with other content")])
        case .unknownVenue:
            throw Problem.notFound("no venue with id \(venueID)")
        }
    }

    @Sendable func get(_ request: Request, context: AppRequestContext) async throws -> Response {
        let venueID = try VenuesController.venueID(context)
        let raw = context.parameters.get("reportId") ?? ""
        guard let id = UUID(uuidString: raw) else {
            throw Problem.malformed("the report id in the path must be a UUID")
        }
        guard let report = try await reports.find(id: id, venueExternalID: venueID) else {
            throw Problem.notFound("no report with id \(raw) about venue \(venueID)")
        }
        return try JSONResponse.make(ReportBody(report))
    }
}

/// The body of `POST /api/v2/venues/{venueId}/reports` as sent. Every field is optional here so
/// that a missing one is reported with its pointer; unknown fields are ignored, as for check-ins.
struct ReportRequest: Decodable, Equatable {
    var device: String?
    var at: String?
    var felt: String?
    var comment: String?
}

/// Turns a report body into a ``ReportSubmission``: 422 with a pointer per bad field.
struct ReportValidator {
    static let deviceMaxLength = 128
    static let commentMaxLength = 500

    var now: Date

    func validate(_ body: ReportRequest, venueExternalID: String) throws -> ReportSubmission {
        var rules = FieldRules()
        // Lengths are of the text as sent (Unicode scalars, as PostgreSQL counts), before
        // trimming, so that what the OpenAPI schema refuses the server refuses too.
        var device: String?
        if let raw = body.device, raw.unicodeScalars.count > Self.deviceMaxLength {
            rules.fail("/device", "must be at most \(Self.deviceMaxLength) characters")
        } else {
            device = rules.text(body.device, "/device", required: true, maxLength: Self.deviceMaxLength)
        }

        var at: RFC3339.Timestamp?
        if let text = body.at {
            // By the clock rules of check-ins (a phone may be a little ahead; a visit is recent).
            if let time = RFC3339.parse(text) {
                if let problem = CheckinValidator.RecentWindow(now: now).problem(time.secondsSince1970) {
                    rules.fail("/at", problem)
                } else {
                    at = time
                }
            } else {
                rules.fail("/at", CheckinValidator.timeRule)
            }
        } else {
            rules.fail("/at", "is required")
        }

        var felt: ReportFeeling?
        if let text = body.felt {
            felt = ReportFeeling(rawValue: text)
            if felt == nil { rules.fail("/felt", "must be \"quieter\", \"louder\" or \"about right\"") }
        } else {
            rules.fail("/felt", "is required")
        }

        var comment: String?
        if let raw = body.comment {
            if raw.unicodeScalars.count > Self.commentMaxLength {
                rules.fail("/comment", "must be at most \(Self.commentMaxLength) characters")
            } else if raw.unicodeScalars.contains("\u{0}") {
                rules.fail("/comment", "must not contain the NUL character")
            } else {
                // A blank comment is no comment (a form's empty text box).
                let trimmed = raw.trimmingCharacters(in: .whitespacesAndNewlines)
                comment = trimmed.isEmpty ? nil : trimmed
            }
        }

        guard rules.errors.isEmpty, let device, let at, let felt else { throw Problem.validation(rules.errors) }
        return ReportSubmission(
            venueExternalID: venueExternalID, deviceID: device, at: at.date, utcOffsetMinutes: at.offsetMinutes,
            felt: felt, comment: comment)
    }
}

/// Reports stored (first receipts only).
enum ReportMetrics {
    static let stored = Counter(label: "hearclear_reports_stored_total")
}
