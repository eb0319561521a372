import Foundation
import HearClearEngine
import HearClearModel
import Hummingbird
import LoudnessCore

/// `/farmer/checkins/{id}`: one check-in, its seconds, its hours against their cells, why it was
/// judged as it was; and forcing it in or out (recorded, reversible, its venue recomputed at once).
struct AdminCheckins: AdminPageRoutes {
    let venues: VenueDirectory
    let adminVenues: AdminVenueReads
    let loudness: LoudnessReads
    let decisions: CheckinDecisions
    let trust: AdminTrustReads
    let audit: AdminAudit
    let renderer: AdminRenderer
    let referenceOffsetDB: Double
    let maxDistanceMetres: Double

    func addRoutes(to group: RouterGroup<AdminRequestContext>) {
        group.get("checkins/:id") { request, context in try await page(request, context: context) }
        group.post("checkins/:id/include") { _, context in try await decide(.include, context: context) }
        group.post("checkins/:id/exclude") { _, context in try await decide(.exclude, context: context) }
        group.post("checkins/:id/clear") { _, context in try await decide(nil, context: context) }
    }

    private func checkinID(_ context: AdminRequestContext) throws -> UUID {
        guard let id = UUID(uuidString: try context.parameters.require("id")) else {
            throw HTTPError(.notFound, message: "There is no check-in with that id.")
        }
        return id
    }

    private func page(_ request: Request, context: AdminRequestContext) async throws -> Response {
        let session = try context.requireSession()
        let id = try checkinID(context)
        guard let checkin = try await loudness.storedCheckin(id: id) else {
            throw HTTPError(.notFound, message: "There is no check-in with that id.")
        }
        async let venue = venues.find(externalID: checkin.venueExternalID)
        async let hours = adminVenues.hours(checkinID: id)
        async let modelOffset = loudness.modelOffsetDB(model: checkin.deviceModel)
        async let override = decisions.current(checkinID: id)
        async let offsets = trust.checkinOffsets(checkinID: id)
        let found = try await venue
        var rejudgement: VenueRejudgement?
        if let found { rejudgement = try await trust.rejudge(venueID: found.id) }
        let weighing = CheckinWeighing.sentences(
            rejudgement?.checkin(id: id), referenceTrust: rejudgement?.referenceTrust, offsets: try await offsets)
        let page = try await CheckinPage(
            chrome: AdminChrome(session, section: .venues), checkin: checkin, venueName: found?.name,
            hours: hours, override: override, modelOffsetDB: modelOffset, referenceOffsetDB: referenceOffsetDB,
            maxDistanceMetres: maxDistanceMetres,
            notice: request.uri.queryParameters["done"].flatMap { CheckinPage.notice(for: String($0)) },
            venueTimezone: found?.timezone, weighing: weighing
        )
        return renderer.page("checkin", page)
    }

    /// Records the decision (nil withdraws it), which recomputes the venue, and shows the result.
    private func decide(_ decision: AggregationInput.AdminDecision?, context: AdminRequestContext) async throws
        -> Response
    {
        let session = try context.requireSession()
        let id = try checkinID(context)
        let note = context.form["note"].map { String($0.prefix(500)) }.flatMap { $0.isEmpty ? nil : $0 }
        let venueID = try await decisions.decide(checkinID: id, decision, username: session.username, note: note)
        let link = "/farmer/checkins/\(id.uuidString.lowercased())"
        guard venueID != nil else {
            if decision == nil { return AdminRenderer.redirect(to: link + "?done=unchanged") }
            throw HTTPError(.notFound, message: "There is no check-in with that id.")
        }
        let action = decision.map { "check-in forced \($0.rawValue)" } ?? "check-in decision withdrawn"
        try await audit.record(
            username: session.username, action: action, subject: AdminFormat.shortCheckinID(id), detail: note
        )
        return AdminRenderer.redirect(to: link + "?done=\(decision?.rawValue ?? "cleared")")
    }
}
