import Foundation
import HearClearStore

/// Gathers what the page of one venue shows.
struct AdminVenueDetails: Sendable {
    let venues: AdminVenueRepository
    let venueStore: VenueRepository
    let referenceOffsetDB: Double

    func page(venue: Venue, chrome: AdminChrome, paging: AdminPaging) async throws -> VenuePage {
        async let count = venueStore.checkinCount(venueID: venue.id)
        async let lastCheckin = venues.lastCheckinAt(venueID: venue.id)
        async let rows = venues.checkins(venueID: venue.id, limit: paging.limit, offset: paging.offset)
        let fetched = try await rows
        let links = paging.links(base: "/farmer/venues/\(venue.externalID)", fetched: fetched.count)
        return try await VenuePage(
            chrome: chrome, venue: venue, checkinCount: count, lastCheckinAt: lastCheckin,
            checkins: Array(fetched.prefix(paging.size)), referenceOffsetDB: referenceOffsetDB,
            previous: links.previous, next: links.next
        )
    }
}
