import HearClearModel
import HearClearStore
import Synchronization

/// The aggregation worker's memory: each recently judged venue as this process stored it, so the
/// next judgement reads only the venue's new check-ins instead of its whole history.
///
/// An entry is tagged with the venue's judgement version its write produced
/// (`venue_activity.judgement_version`) and is used only while the database still holds that
/// version: a write by another process (or by this one's admin pages, which recompute directly)
/// raises it and the worker then reads the venue in full. The entries together hold at most
/// `capacity` check-ins; past that, the least recently used venues are forgotten.
final class VenueStateCache: Sendable {
    private struct Entry {
        var version: Int64
        var state: AggregationInput
        var lastUse: UInt64
    }

    private struct Storage {
        var entries: [Int64: Entry] = [:]
        var checkins = 0
        var clock: UInt64 = 0
    }

    /// Most check-ins held over all venues; 0 keeps nothing.
    let capacity: Int
    private let storage = Mutex(Storage())

    init(capacity: Int) {
        self.capacity = max(0, capacity)
    }

    /// The venue as stored at `version`, or `nil` when not held at that version (a stale entry is
    /// dropped).
    func state(venueID: Int64, version: Int64) -> AggregationInput? {
        storage.withLock { storage in
            guard let entry = storage.entries[venueID] else { return nil }
            guard entry.version == version else {
                storage.checkins -= entry.state.checkins.count
                storage.entries[venueID] = nil
                return nil
            }
            storage.clock += 1
            storage.entries[venueID]?.lastUse = storage.clock
            return entry.state
        }
    }

    /// Holds `state` as the venue's stored state at `version`, forgetting the least recently used
    /// venues when over capacity (a venue larger than the whole capacity is not held).
    func store(_ state: AggregationInput, version: Int64) {
        storage.withLock { storage in
            if let old = storage.entries.removeValue(forKey: state.venueID) {
                storage.checkins -= old.state.checkins.count
            }
            guard state.checkins.count <= capacity else { return }
            storage.clock += 1
            storage.entries[state.venueID] = Entry(version: version, state: state, lastUse: storage.clock)
            storage.checkins += state.checkins.count
            guard storage.checkins > capacity else { return }
            // Forget down to 90 % of capacity at once, so eviction's sort is rare.
            let target = capacity - capacity / 10
            for (venueID, entry) in storage.entries.sorted(by: { $0.value.lastUse < $1.value.lastUse }) {
                guard storage.checkins > target else { break }
                storage.entries[venueID] = nil
                storage.checkins -= entry.state.checkins.count
            }
        }
    }

    /// Venues held, and their check-ins.
    var size: (venues: Int, checkins: Int) {
        storage.withLock { ($0.entries.count, $0.checkins) }
    }
}
