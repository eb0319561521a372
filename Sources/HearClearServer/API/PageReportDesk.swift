import Foundation
import HearClearEngine
import HearClearHTTP
import HearClearPages
import Hummingbird

/// The pages' "this was wrong" form (HearClearPages) made into a report as the API makes one:
/// the same ``ReportValidator``, the same per-address (``RateLimitMiddleware``) and per-device
/// limits. A form has no device: the client address stands for it (only its keyed hash is
/// stored, as a device's), and the report is about the venue now.
struct ServerPageReportDesk: PageReportDesk {
    let reports: VenueReports
    let reads: CachedReads
    let limiter: RateLimiter

    func submit(_ form: PageReportForm, context: AppRequestContext) async throws -> PageReportResult {
        let now = Date()
        let device = "web:" + (context.clientAddress ?? "unknown")
        let body = ReportRequest(
            device: device, at: RFC3339.format(now), felt: form.felt.flatMap { $0.isEmpty ? nil : $0 },
            comment: form.comment)
        do {
            let submission = try ReportValidator(now: now).validate(body, venueExternalID: form.venueExternalID)
            let report = reports.keyed(submission)
            let outcome = try await limiter.admitReport(device: report.device, context: context) {
                try await reports.submit(report, bands: reads.currentBands)
            }
            switch outcome {
            case .created:
                ReportMetrics.stored.increment()
                return .received
            case .duplicate, .conflict: return .received
            case .unknownVenue: return .unknownVenue
            }
        } catch let problem as Problem where problem.status == .tooManyRequests {
            return .tooMany(problem.detail ?? "try again later")
        } catch let problem as Problem where problem.status == .unprocessableContent {
            var errors: [String: String] = [:]
            for error in problem.errors {
                switch error.pointer {
                case "/felt": errors["felt"] = "Choose how it is: louder, quieter or about right."
                case "/comment": errors["comment"] = "The comment \(error.detail)."
                default: errors[""] = "The report could not be taken: \(error.detail)."
                }
            }
            return .invalid(errors)
        }
    }
}
