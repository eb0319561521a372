import Foundation
import HearClearModel
import HearClearStore
import LoudnessCore

/// Venues by their external id: creating and replacing their details, and the venue document
/// (`GET /api/v2/venues/{venueId}`) with its check-in count and overall level.
public struct VenueDirectory: Sendable {
    let venues: VenueRepository
    let loudness: LoudnessReads

    /// A venue with what its document shows beside its details.
    public struct Summary: Sendable, Equatable {
        public var venue: Venue
        public var checkins: Int
        public var levelDB: Double?
        public var label: String?
        /// When its change in force began (docs/ARCHITECTURE.md, "Venues that change").
        public var changedAt: Date? = nil
    }

    /// Creates the venue or replaces its details; `created` tells which. When the time zone of a
    /// venue with check-ins changes, their venue-local hours change: their cleaning is forgotten
    /// and the venue queued, in the same transaction.
    public func save(externalID: String, details: VenueDetails) async throws -> (venue: Venue, created: Bool) {
        try await venues.upsert(externalID: externalID, details: details)
    }

    /// Creates the venue unless it exists; never changes an existing one.
    public func createIfMissing(externalID: String, details: VenueDetails) async throws -> Venue {
        try await venues.createIfMissing(externalID: externalID, details: details)
    }

    /// The venue, read where reads go (``ReadDatabase``).
    public func find(externalID: String) async throws -> Venue? {
        try await loudness.venue(externalID: externalID)
    }

    /// How many check-ins the venue has, in all.
    public func checkinCount(venueID: Int64) async throws -> Int {
        try await loudness.checkinCount(venueID: venueID)
    }

    /// The venue's document: details, check-in count, overall level and label (with `bands`);
    /// `nil` when unknown.
    public func summary(externalID: String, bands: Bands) async throws -> Summary? {
        guard let venue = try await find(externalID: externalID) else { return nil }
        // The count does not depend on the loudness reads: it runs beside them.
        async let count = checkinCount(venueID: venue.id)
        async let changedAt = loudness.changedAt(venueID: venue.id)
        let overall = LoudnessReads.overall(try await loudness.cells(venueID: venue.id, bands: bands), bands: bands)
        return Summary(
            venue: venue, checkins: try await count, levelDB: overall?.levelDB, label: overall?.label,
            changedAt: try await changedAt)
    }
}
