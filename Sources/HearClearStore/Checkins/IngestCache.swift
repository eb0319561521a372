import Foundation
import HearClearModel
import Synchronization

/// Keys of venues and devices recently seen by this process, so that a typical check-in
/// (known venue, known device) is stored with one statement instead of a five-step
/// transaction.
///
/// Venues are kept for `venueLifetime` (their coordinates decide the location check, and another
/// instance may change them); this process forgets a venue at once when it updates it. Devices
/// are kept for `deviceLifetime`, after which the next check-in refreshes `last_seen_at`.
public final class IngestCache: Sendable {
    public init() {}

    struct CachedVenue: Sendable {
        var venue: Venue
        var expires: Date
    }

    struct CachedDevice: Sendable {
        var id: Int64
        var model: String?
        var expires: Date
    }

    static let venueLifetime: TimeInterval = 30
    static let deviceLifetime: TimeInterval = 60
    static let capacity = 50_000

    private let venues = Mutex<[String: CachedVenue]>([:])
    private let devices = Mutex<[String: CachedDevice]>([:])

    func venue(_ externalID: String, now: Date = Date()) -> Venue? {
        venues.withLock { $0[externalID].flatMap { $0.expires > now ? $0.venue : nil } }
    }

    func remember(_ venue: Venue, now: Date = Date()) {
        venues.withLock { cache in
            if cache.count >= Self.capacity { cache.removeAll(keepingCapacity: true) }
            cache[venue.externalID] = CachedVenue(venue: venue, expires: now.addingTimeInterval(Self.venueLifetime))
        }
    }

    func forgetVenue(_ externalID: String) {
        _ = venues.withLock { $0.removeValue(forKey: externalID) }
    }

    /// The device key when known, with the same model, and fresh.
    func device(_ clientID: String, model: String?, now: Date = Date()) -> Int64? {
        devices.withLock { cache in
            guard let entry = cache[clientID], entry.expires > now, model == nil || entry.model == model else {
                return nil
            }
            return entry.id
        }
    }

    func remember(device id: Int64, clientID: String, model: String?, now: Date = Date()) {
        devices.withLock { cache in
            if cache.count >= Self.capacity { cache.removeAll(keepingCapacity: true) }
            cache[clientID] = CachedDevice(id: id, model: model, expires: now.addingTimeInterval(Self.deviceLifetime))
        }
    }
}
