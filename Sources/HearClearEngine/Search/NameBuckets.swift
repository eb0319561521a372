import HearClearModel

/// The search index's venues by the starts of the words of their names (docs/ARCHITECTURE.md,
/// "Search", "By name"): a bucket for each word's first two and first three scalars (words of one
/// scalar are in none) holding the slots of the venues with such a word.
///
/// A bucket keeps its slots in ascending order, so that buckets intersect by merging and a slot is
/// found by halving, with no hashing. Once the buckets are ordered (``orderAll(by:)``, when the
/// index has loaded), each also keeps them in the order a search without a point answers in
/// (``SlotOrder``), so that the search reads only the start of it; kept so as venues come and go,
/// in buckets made since too.
struct NameBuckets: Sendable {
    struct Bucket: Sendable {
        /// Ascending.
        fileprivate(set) var slots: [Int32] = []
        /// The same slots by their venues' name keys, then ids (``SlotOrder``); `nil` until ordered.
        fileprivate(set) var byKey: [Int32]?
        /// The same slots as bits (bit `slot % 64` of word `slot / 64`), kept once the bucket is
        /// large for its range: the bits then take no more memory than `slots`, and a search that
        /// tests thousands of venues against the bucket tests each with one load, not by halving.
        fileprivate(set) var bits: [UInt64]?

        var count: Int { slots.count }

        func contains(_ slot: Int32) -> Bool {
            if let bits {
                let word = Int(slot) >> 6
                return word < bits.count && bits[word] & (1 << UInt64(slot & 63)) != 0
            }
            let position = Self.lowerBound(of: slot, in: slots)
            return position < slots.count && slots[position] == slot
        }

        /// Makes the bits once they would take no more memory than the slots (a slot to every 32
        /// of the range up to the largest), and lets them go once they would take twice as much
        /// (so that a bucket at the edge does not remake them at every change).
        fileprivate mutating func fitBits() {
            let range = Int(slots.last ?? -1) + 1
            if bits == nil, range > 0, slots.count * 32 >= range {
                var bits = [UInt64](repeating: 0, count: (range + 63) / 64)
                for slot in slots { bits[Int(slot) >> 6] |= 1 << UInt64(slot & 63) }
                self.bits = bits
            } else if bits != nil, slots.count * 64 < range {
                bits = nil
            }
        }

        /// The first position in `sorted` (ascending), from `start` on, whose slot is not below
        /// `slot`: found by galloping then halving, so that a merge that skips far costs little.
        static func lowerBound(of slot: Int32, in sorted: [Int32], from start: Int = 0) -> Int {
            var low = start
            var step = 1
            var high = start
            while high < sorted.count, sorted[high] < slot {
                low = high + 1
                high += step
                step *= 2
            }
            high = min(high, sorted.count)
            while low < high {
                let middle = (low + high) / 2
                if sorted[middle] < slot { low = middle + 1 } else { high = middle }
            }
            return low
        }
    }

    private(set) var buckets: [String: Bucket] = [:]
    /// Whether ``orderAll(by:)`` ordered them: a bucket made since starts ordered (empty).
    private(set) var ordered = false

    subscript(prefix: String) -> Bucket? { buckets[prefix] }

    /// Each bucket's slots, as sets.
    var slotSets: [String: Set<Int32>] { buckets.mapValues { Set($0.slots) } }

    /// The start of `word` that names its bucket: its first three scalars, or two for a word of
    /// two; `nil` for a word of one.
    static func prefix(of word: Substring.UnicodeScalarView) -> String? {
        guard word.count >= 2 else { return nil }
        return String(Substring(word.prefix(prefixLength)))
    }

    /// The longest start of a word that names a bucket, in scalars.
    static let prefixLength = 3

    /// The buckets a key's venue is in: the first two and three scalars of each of its words.
    static func prefixes(_ key: String?) -> Set<String> {
        guard let key else { return [] }
        var prefixes = Set<String>()
        for word in key.unicodeScalars.split(separator: " ") where word.count >= 2 {
            prefixes.insert(String(Substring(word.prefix(2))))
            if word.count >= prefixLength { prefixes.insert(String(Substring(word.prefix(prefixLength)))) }
        }
        return prefixes
    }

    /// Puts `slot`, whose venue's name key is `key`, in the buckets of its words.
    mutating func insert(_ slot: Int32, key: String?, by order: SlotOrder) {
        for prefix in Self.prefixes(key) {
            buckets[prefix, default: Bucket(byKey: ordered ? [] : nil)].insert(slot, by: order)
        }
    }

    /// Takes `slot`, whose venue's name key is `key`, out of the buckets of its words.
    mutating func remove(_ slot: Int32, key: String?, by order: SlotOrder) {
        for prefix in Self.prefixes(key) {
            buckets[prefix]?.remove(slot, by: order)
            if buckets[prefix]?.slots.isEmpty == true { buckets[prefix] = nil }
        }
    }

    /// Orders every bucket by key, and from then on keeps them so, those made later too.
    mutating func orderAll(by order: SlotOrder) {
        for (prefix, bucket) in buckets where bucket.byKey == nil {
            buckets[prefix]?.byKey = bucket.slots.sorted(by: order.precedes)
        }
        ordered = true
    }
}

extension NameBuckets.Bucket {
    fileprivate mutating func insert(_ slot: Int32, by order: SlotOrder) {
        slots.insert(slot, at: Self.lowerBound(of: slot, in: slots))
        if bits != nil {
            let word = Int(slot) >> 6
            if word >= bits!.count { bits!.append(contentsOf: repeatElement(0, count: word + 1 - bits!.count)) }
            bits![word] |= 1 << UInt64(slot & 63)
        }
        fitBits()
        guard byKey != nil else { return }
        let position = order.lowerBound(of: slot, in: byKey!)
        byKey!.insert(slot, at: position)
    }

    fileprivate mutating func remove(_ slot: Int32, by order: SlotOrder) {
        let position = Self.lowerBound(of: slot, in: slots)
        guard position < slots.count, slots[position] == slot else { return }
        slots.remove(at: position)
        if bits != nil { bits![Int(slot) >> 6] &= ~(1 << UInt64(slot & 63)) }
        fitBits()
        guard byKey != nil else { return }
        let ordered = order.lowerBound(of: slot, in: byKey!)
        if ordered < byKey!.count, byKey![ordered] == slot {
            byKey!.remove(at: ordered)
        } else if let found = byKey!.firstIndex(of: slot) {
            byKey!.remove(at: found)
        }
    }
}

/// The order a search by name without a point answers in: by the venues' name keys (their UTF-8
/// bytes, as PostgreSQL's `COLLATE "C"`), then their ids.
struct SlotOrder {
    /// By slot.
    let keys: [String?]
    let ids: [Int64]
    /// A slot whose key the table has already let go of (a venue read again into another slot):
    /// its key and id as they were.
    var moving: (slot: Int32, key: String?, id: Int64)?

    func key(_ slot: Int32) -> (String, Int64) {
        if let moving, moving.slot == slot { return (moving.key ?? "", moving.id) }
        return (keys[Int(slot)] ?? "", ids[Int(slot)])
    }

    func precedes(_ a: Int32, _ b: Int32) -> Bool {
        Self.precedes(key(a), key(b))
    }

    /// By key bytes, then id: ``NameSearcher``'s order after the distance.
    static func precedes(_ a: (String, Int64), _ b: (String, Int64)) -> Bool {
        if NameWords.precedes(a.0, b.0) { return true }
        if NameWords.precedes(b.0, a.0) { return false }
        return a.1 < b.1
    }

    /// The first position in `ordered` whose slot does not precede `slot`.
    func lowerBound(of slot: Int32, in ordered: [Int32]) -> Int {
        let target = key(slot)
        return Self.firstPosition(in: ordered) { !Self.precedes(key($0), target) }
    }

    /// The first position in `ordered` whose slot comes after `(key, id)`.
    func firstAfter(key: String, id: Int64, in ordered: [Int32]) -> Int {
        Self.firstPosition(in: ordered) { Self.precedes((key, id), self.key($0)) }
    }

    /// The first position whose slot `isPast` (false up to some position, true from it on).
    private static func firstPosition(in ordered: [Int32], where isPast: (Int32) -> Bool) -> Int {
        var low = 0
        var high = ordered.count
        while low < high {
            let middle = (low + high) / 2
            if isPast(ordered[middle]) { high = middle } else { low = middle + 1 }
        }
        return low
    }
}
