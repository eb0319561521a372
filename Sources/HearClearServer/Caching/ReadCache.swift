import HearClearModel
import HearClearPages
import LoudnessCore
import Metrics
import NIOCore
import Synchronization

/// What the read endpoints answer, kept encoded in this instance's memory: each answer's JSON,
/// its gzip'd form and their ETags, computed once per change, so a hit costs no database round
/// trip, no encoding and no compression (docs/ARCHITECTURE.md, "Reads and their cache").
///
/// It holds at most ``capacityBytes`` of bodies; past that the least recently used answers go
/// first. It is kept true by ``ReadChange`` notifications (``ReadCacheListener``), and it answers
/// nothing while it is not listening: it cannot know what it missed, so it starts empty each time
/// it listens again. An answer read from the database is kept only if nothing it depends on was
/// invalidated after the read began (``ticket()``), so an answer read just before a change never
/// outlives the change's notification.
final class ReadCache: Sendable {
    /// What is cached: one answer each.
    enum Key: Hashable, Sendable {
        case grid(externalID: String)
        case venue(externalID: String)
        case bands
        /// A page for people (``PageKey``): a venue's are dropped with the venue's answers.
        case page(PageKey)
    }

    /// When a read began, in invalidations seen, and — when it reads a replica — the moment up to
    /// which the replica had replayed every commit; see ``fill(_:_:since:)``.
    struct Ticket: Sendable {
        fileprivate let sequence: UInt64
        fileprivate let replicaHorizon: ContinuousClock.Instant?
    }

    private struct Entry {
        var answer: EncodedAnswer
        var lastUse: UInt64
        /// When it stops being answered, for answers that also depend on what no notification
        /// names (a venue page's alternatives nearby, the hour now); `nil`: until invalidated.
        var expires: ContinuousClock.Instant?
    }

    private struct State {
        var entries: [Key: Entry] = [:]
        var bytes = 0
        var clock: UInt64 = 0
        var listening = false
        /// Invalidations seen, and when each key was last invalidated; a read that began before
        /// its key's last invalidation (or before `floor`) is not kept, nor a read from a replica
        /// that had not replayed up to that moment.
        var sequence: UInt64 = 0
        var invalidatedAt: [Key: (sequence: UInt64, at: ContinuousClock.Instant)] = [:]
        var floor: (sequence: UInt64, at: ContinuousClock.Instant) = (0, .now)
        /// The bands in force, decoded, which every grid and venue answer is labelled with.
        var bands: Bands?
    }

    /// Bytes of bodies (plain and gzip'd) held at most.
    let capacityBytes: Int
    private let state = Mutex(State())
    /// Keys remembered as invalidated at most; past that they are forgotten and every read begun
    /// before is refused instead.
    private static let invalidationMemory = 100_000

    static let hits = Counter(label: "hearclear_read_cache_total", dimensions: [("result", "hit")])
    static let misses = Counter(label: "hearclear_read_cache_total", dimensions: [("result", "miss")])
    static let evictions = Counter(label: "hearclear_read_cache_evictions_total")
    static let invalidations = Counter(label: "hearclear_read_cache_invalidations_total")
    static let bytesHeld = Gauge(label: "hearclear_read_cache_bytes")
    static let entriesHeld = Gauge(label: "hearclear_read_cache_entries")

    init(capacityBytes: Int) {
        self.capacityBytes = max(0, capacityBytes)
    }

    /// The cached answer; `nil` (a miss) when it is not held or the cache is not listening.
    func answer(_ key: Key) -> EncodedAnswer? {
        var expired: (bytes: Int, entries: Int)?
        let found: EncodedAnswer? = state.withLock { state in
            guard state.listening, let entry = state.entries[key] else { return nil }
            if let expires = entry.expires, expires <= .now {
                state.entries[key] = nil
                state.bytes -= entry.answer.bytes
                expired = (state.bytes, state.entries.count)
                return nil
            }
            state.clock += 1
            state.entries[key]?.lastUse = state.clock
            return entry.answer
        }
        if let expired {
            Self.bytesHeld.record(expired.bytes)
            Self.entriesHeld.record(expired.entries)
        }
        if found == nil { Self.misses.increment() } else { Self.hits.increment() }
        return found
    }

    /// Take one before reading what ``fill(_:_:since:)`` will keep. `replicaHorizon`: the read
    /// may go to a replica that has replayed every commit up to that moment (`nil`: the primary).
    func ticket(replicaHorizon: ContinuousClock.Instant? = nil) -> Ticket {
        state.withLock { Ticket(sequence: $0.sequence, replicaHorizon: replicaHorizon) }
    }

    /// Keeps `answer`, read from the database after `ticket` was taken, unless what it depends on
    /// was invalidated since, or it was read from a replica that may not have replayed the last
    /// change of it yet, or the cache is not listening. Answers larger than the whole capacity are
    /// not kept. With `keepFor`, it is answered for that long at most.
    func fill(_ key: Key, _ answer: EncodedAnswer, since ticket: Ticket, keepFor: Duration? = nil) {
        var evicted = 0
        let (bytes, entries) = state.withLock { state -> (Int, Int) in
            let last = state.invalidatedAt[key] ?? state.floor
            guard state.listening, ticket.sequence >= state.floor.sequence, last.sequence <= ticket.sequence,
                ticket.replicaHorizon.map({ $0 > last.at && $0 > state.floor.at }) ?? true,
                answer.bytes <= capacityBytes
            else { return (state.bytes, state.entries.count) }
            state.clock += 1
            let entry = Entry(answer: answer, lastUse: state.clock, expires: keepFor.map { .now + $0 })
            if let old = state.entries.updateValue(entry, forKey: key) {
                state.bytes -= old.answer.bytes
            }
            state.bytes += answer.bytes
            if state.bytes > capacityBytes {
                // Down to 90 % at once, so eviction's sort is rare.
                let target = capacityBytes - capacityBytes / 10
                for (key, entry) in state.entries.sorted(by: { $0.value.lastUse < $1.value.lastUse }) {
                    guard state.bytes > target else { break }
                    state.entries[key] = nil
                    state.bytes -= entry.answer.bytes
                    evicted += 1
                }
            }
            return (state.bytes, state.entries.count)
        }
        if evicted > 0 { Self.evictions.increment(by: evicted) }
        Self.bytesHeld.record(bytes)
        Self.entriesHeld.record(entries)
    }

    /// The bands in force as last read, while nothing has changed them.
    var bands: Bands? {
        state.withLock { $0.listening ? $0.bands : nil }
    }

    /// Keeps the bands read after `ticket` was taken, unless the bands changed since (any band
    /// change empties the whole cache, so the floor tells) or the cache is not listening. Bands
    /// read from a replica are kept only once the replica has replayed past that change.
    func keep(_ bands: Bands, since ticket: Ticket) {
        state.withLock { state in
            guard state.listening, ticket.sequence >= state.floor.sequence,
                ticket.replicaHorizon.map({ $0 > state.floor.at }) ?? true
            else { return }
            state.bands = bands
        }
    }

    /// Drops what `change` names: a venue's document and grid, or (bands) everything.
    func invalidate(_ change: ReadChange) {
        let (bytes, entries) = state.withLock { state -> (Int, Int) in
            state.sequence += 1
            switch change {
            case .venue(let externalID):
                for key in [
                    Key.grid(externalID: externalID), .venue(externalID: externalID),
                    .page(.venue(externalID: externalID)), .page(.weekSVG(externalID: externalID)),
                ] {
                    if let old = state.entries.removeValue(forKey: key) { state.bytes -= old.answer.bytes }
                    state.invalidatedAt[key] = (state.sequence, .now)
                }
                if state.invalidatedAt.count > Self.invalidationMemory {
                    state.invalidatedAt = [:]
                    state.floor = (state.sequence, .now)
                }
            case .bands:
                Self.dropAll(&state)
            }
            return (state.bytes, state.entries.count)
        }
        Self.invalidations.increment()
        Self.bytesHeld.record(bytes)
        Self.entriesHeld.record(entries)
    }

    /// Starts (or stops) answering and keeping answers. Either way the cache starts empty: what
    /// changed while it was not listening is unknown.
    func setListening(_ listening: Bool) {
        state.withLock { state in
            state.sequence += 1
            Self.dropAll(&state)
            state.listening = listening
        }
        Self.bytesHeld.record(0)
        Self.entriesHeld.record(0)
    }

    private static func dropAll(_ state: inout State) {
        state.entries = [:]
        state.bands = nil
        state.bytes = 0
        state.invalidatedAt = [:]
        state.floor = (state.sequence, .now)
    }

    /// Answers and bytes held, and whether it is listening.
    var size: (entries: Int, bytes: Int, listening: Bool) {
        state.withLock { ($0.entries.count, $0.bytes, $0.listening) }
    }
}
