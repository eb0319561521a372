import Foundation
import HearClearStore
import Hummingbird
import LoudnessCore

/// `/farmer/checkins/{id}`: one check-in, its seconds, and why it was judged as it was.
struct AdminCheckins: AdminPageRoutes {
    let checkins: CheckinRepository
    let venueStore: VenueRepository
    let renderer: AdminRenderer
    let referenceOffsetDB: Double
    let maxDistanceMetres: Double

    func addRoutes(to group: RouterGroup<AdminRequestContext>) {
        group.get("checkins/:id") { _, context in try await page(context) }
    }

    private func checkinID(_ context: AdminRequestContext) throws -> UUID {
        let text = try context.parameters.require("id")
        guard let id = UUID(uuidString: text) else {
            throw HTTPError(.notFound, message: "There is no check-in with that id.")
        }
        return id
    }

    private func page(_ context: AdminRequestContext) async throws -> Response {
        let session = try context.requireSession()
        let id = try checkinID(context)
        guard let checkin = try await checkins.find(id: id) else {
            throw HTTPError(.notFound, message: "There is no check-in with that id.")
        }
        let venue = try await venueStore.find(externalID: checkin.venueExternalID)
        let page = CheckinPage(
            chrome: AdminChrome(session, section: .venues), checkin: checkin, venueName: venue?.name,
            modelOffsetDB: 0, referenceOffsetDB: referenceOffsetDB, maxDistanceMetres: maxDistanceMetres
        )
        return renderer.page("checkin", page)
    }
}
