import Foundation
import HearClearModel
import LoudnessCore

/// One search by name over a ``VenueTable``, with exactly the semantics of
/// ``VenueSearchRepository``'s name query (docs/ARCHITECTURE.md, "Search", "By name"):
///
/// * a venue is found when each of the search's words (``NameWords``) starts a word of its
///   stored name key, compared as bytes (`LIKE '% word%'` on `name_key`);
/// * with a point, only venues within the radius (`distance ≤ radius`, ``SphereDistance``);
///   without one, every venue at distance 0;
/// * order `(distance, name key by its UTF-8 bytes, id)` — `COLLATE "C"` — and after a cursor,
///   strictly greater keys;
/// * each hit levelled as ``Searcher`` levels it (overall, and its cell at `at`'s local hour).
///
/// Where it looks: each word of two scalars or more names a bucket of ``VenueTable/nameBuckets``
/// (its first two or three scalars; every venue found is in each). Without a point, it reads the
/// smallest in the order of the answer (``NameBuckets/Bucket/byKey``: name key, then id) from the
/// cursor on, and stops once the page is full. With a point, it reads the venues in every bucket
/// (merging their slots), or the grid's venues near the point when they are fewer, and keeps the
/// nearest. With only words of one scalar, the grid near the point, or every venue.
struct NameSearcher {
    let table: VenueTable
    /// ``NameWords/searchWords(of:)``: not empty.
    let words: [String]
    let near: (latitude: Double, longitude: Double)?
    let radiusMetres: Double
    let at: Date?
    let category: String?
    let limit: Int
    let after: VenueSearchQuery.Position?
    /// The name key of the venue `after` names.
    let afterKey: String?
    let referenceOffsetDB: Double

    fileprivate struct Candidate {
        var distance: Double
        var key: String
        var id: Int64
        var slot: Int32
    }

    /// The page, or `nil` when a venue on it keeps its hours by a zone Foundation does not know
    /// (only PostgreSQL can tell its hour).
    func run() -> [SearchIndex.Hit]? {
        guard !words.isEmpty else { return [] }
        var categoryNumber: Int32?
        if let category {
            guard let number = table.categories[category] else { return [] }
            categoryNumber = number
        }
        // The buckets the words name, smallest first. A word naming no bucket: no venue has a
        // word that starts so.
        var buckets: [NameBuckets.Bucket] = []
        for word in words {
            guard let prefix = NameBuckets.prefix(of: Substring(word).unicodeScalars) else { continue }
            guard let bucket = table.nameBuckets[prefix] else { return [] }
            buckets.append(bucket)
        }
        buckets.sort { $0.count < $1.count }
        var filter = Filter(searcher: self, category: categoryNumber)
        if near == nil, let smallest = buckets.first, let byKey = smallest.byKey {
            filter.readInKeyOrder(byKey, others: buckets.dropFirst())
        } else {
            filter.readAll(buckets)
        }
        let page = Searcher.smallest(max(0, limit), of: filter.candidates) {
            Self.precedes(($0.distance, $0.key, $0.id), ($1.distance, $1.key, $1.id))
        }
        return hits(page)
    }

    /// What every venue found passes (the words, the category, the radius, the cursor), and the
    /// venues that did.
    private struct Filter {
        let searcher: NameSearcher
        let category: Int32?
        let point: SphereDistance.Point?
        let cap: SearchGrid.Cap?
        /// The cap's box in radians, as `slotPoints` are: most venues in the buckets are outside
        /// it, and are passed over without measuring.
        let box: RadianBox?
        let after: (Double, String, Int64)?
        /// Words whose bucket does not tell: longer than a bucket's name, or of one scalar (in none).
        let toRead: [String]
        /// What ``consider(_:)`` reads of the table by slot, held here: reading them through
        /// `searcher.table` copied the table's references at every venue considered.
        let slotCategories: [Int32]
        let slotPoints: [SphereDistance.Point]
        let nameKeys: [String?]
        let slotIDs: [Int64]
        var candidates: [Candidate] = []

        init(searcher: NameSearcher, category: Int32?) {
            self.searcher = searcher
            self.category = category
            slotCategories = searcher.table.slotCategories
            slotPoints = searcher.table.slotPoints
            nameKeys = searcher.table.nameKeys
            slotIDs = searcher.table.slotIDs
            point = searcher.near.map { SphereDistance.Point(latitude: $0.latitude, longitude: $0.longitude) }
            cap = searcher.near.map {
                SearchGrid.Cap(latitude: $0.latitude, longitude: $0.longitude, radiusMetres: searcher.radiusMetres)
            }
            box = cap.map(RadianBox.init)
            after = searcher.after.map { ($0.distanceMetres, searcher.afterKey ?? "", $0.venueID) }
            // A word of two or three scalars is its bucket's name: a venue in that bucket has a
            // word starting with it, and its key need not be read to tell.
            toRead = searcher.words.filter {
                $0.unicodeScalars.count > NameBuckets.prefixLength || $0.unicodeScalars.count < 2
            }
        }

        /// Without a point every venue is at distance 0, so the answer is in the order of
        /// `byKey` (the smallest bucket's): read it from the cursor on until the page is full.
        mutating func readInKeyOrder(_ byKey: [Int32], others: ArraySlice<NameBuckets.Bucket>) {
            let table = searcher.table
            var start = 0
            if let after {
                // Past the cursor, by (key, id): every venue is at distance 0, so a cursor at a
                // greater distance has them all before it.
                guard after.0 <= 0 else { return }
                start = SlotOrder(keys: table.nameKeys, ids: table.slotIDs)
                    .firstAfter(key: after.1, id: after.2, in: byKey)
            }
            let wanted = max(0, searcher.limit)
            guard wanted > 0 else { return }
            for slot in byKey[start...] where others.allSatisfy({ $0.contains(slot) }) {
                consider(slot)
                if candidates.count >= wanted { return }
            }
        }

        /// Every venue in all of `buckets` (merged by slot), or near the point when the grid
        /// holds fewer there, or, with no bucket, near the point or every venue.
        mutating func readAll(_ buckets: [NameBuckets.Bucket]) {
            let table = searcher.table
            let smallest = buckets.first
            if let cap, smallest.map({ $0.count > searcher.nearbyCount(cap) }) ?? true {
                // Near the point: the grid's venues there, each in every bucket.
                for gridKey in table.grid.cells(touching: cap) {
                    for list in [table.cells, table.plainCells] {
                        guard let cell = list[gridKey] else { continue }
                        for k in cell.slots.indices
                        where cap.contains(latitude: cell.latitudes[k], longitude: cell.longitudes[k]) {
                            let slot = cell.slots[k]
                            if buckets.allSatisfy({ $0.contains(slot) }) { consider(slot) }
                        }
                    }
                }
            } else if let smallest {
                // The slots in every bucket, narrowed bucket by bucket: by its bits, or by merging
                // its slots (ascending) behind those left.
                var slots = smallest.slots
                for other in buckets.dropFirst() {
                    slots = Self.intersection(slots, other)
                    if slots.isEmpty { return }
                }
                for slot in slots { consider(slot) }
            } else {
                for slot in table.nameKeys.indices where table.nameKeys[slot] != nil { consider(Int32(slot)) }
            }
        }

        /// The slots of `slots` (ascending) that are in `bucket`.
        private static func intersection(_ slots: [Int32], _ bucket: NameBuckets.Bucket) -> [Int32] {
            var kept: [Int32] = []
            kept.reserveCapacity(min(slots.count, bucket.count))
            if bucket.bits != nil {
                for slot in slots where bucket.contains(slot) { kept.append(slot) }
                return kept
            }
            let other = bucket.slots
            var position = 0
            for slot in slots {
                position = NameBuckets.Bucket.lowerBound(of: slot, in: other, from: position)
                guard position < other.count else { break }
                if other[position] == slot { kept.append(slot) }
            }
            return kept
        }

        /// Keeps the venue in `slot` (in every bucket of the words) if it passes the rest.
        private mutating func consider(_ slot: Int32) {
            let index = Int(slot)
            if let category, slotCategories[index] != category { return }
            // With a point, the distance first (by slot: most venues in the buckets are farther).
            var distance = 0.0
            if let point, let box {
                let venuePoint = slotPoints[index]
                guard box.contains(venuePoint) else { return }
                distance = SphereDistance.metres(from: venuePoint, to: point)
                guard distance <= searcher.radiusMetres else { return }
            }
            // Then the key, by slot.
            guard let key = nameKeys[index], toRead.isEmpty || NameWords.key(key, startsWordsWith: toRead)
            else { return }
            let id = slotIDs[index]
            if let after {
                guard NameSearcher.precedes(after, (distance, key, id)) else { return }
            }
            candidates.append(Candidate(distance: distance, key: key, id: id, slot: slot))
        }
    }

    /// A cap's box (``SearchGrid/Cap``, in degrees) in radians, widened by 10⁻¹² rad (far more than
    /// the conversions' rounding, far less than the cap's own 10⁻⁹° of room): every point within
    /// the radius is inside.
    fileprivate struct RadianBox {
        let latitudes: ClosedRange<Double>
        let longitudes: [ClosedRange<Double>]

        init(_ cap: SearchGrid.Cap) {
            let pad = 1e-12
            func radians(_ degrees: ClosedRange<Double>) -> ClosedRange<Double> {
                (degrees.lowerBound * .pi / 180 - pad)...(degrees.upperBound * .pi / 180 + pad)
            }
            latitudes = radians(cap.latitudes)
            longitudes = cap.longitudes.map(radians)
        }

        func contains(_ point: SphereDistance.Point) -> Bool {
            guard latitudes.contains(point.latitude) else { return false }
            // Longitudes are normalised into (−π, π]: −180° is kept as π.
            for range in longitudes
            where range.contains(point.longitude) || (point.longitude == .pi && range.contains(-.pi)) {
                return true
            }
            return false
        }
    }

    /// The page's hits, each levelled as ``Searcher`` levels it; `nil` when a venue's zone is one
    /// Foundation does not know.
    private func hits(_ page: [Candidate]) -> [SearchIndex.Hit]? {
        var hits: [SearchIndex.Hit] = []
        hits.reserveCapacity(page.count)
        for candidate in page {
            guard let venue = table.venues[Int(candidate.slot)] else { continue }
            var cell: (index: Int, cell: IndexedVenue.PackedCell)?
            if let at, let levels = venue.levels, levels.clock >= 0 {
                guard let clock = table.clockList[Int(levels.clock)] else { return nil }
                let index = clock.localHour(at: at).hourOfWeek
                cell = levels.cells[index].map { (index, $0) }
            }
            let overall = venue.levels.flatMap { levels in
                levels.overallDBFS.isNaN ? nil : Searcher.rounded(Double(levels.overallDBFS), referenceOffsetDB)
            }
            hits.append(
                SearchIndex.Hit(
                    venue: venue.venue, checkins: venue.checkins, distanceMetres: candidate.distance,
                    overallDB: overall, cell: cell,
                    position: .init(levelDB: nil, distanceMetres: candidate.distance, venueID: venue.venue.id)))
        }
        return hits
    }

    /// How many venues the grid holds in the cells the cap touches: what looking near the point
    /// would read.
    fileprivate func nearbyCount(_ cap: SearchGrid.Cap) -> Int {
        table.grid.cells(touching: cap).reduce(0) { count, key in
            count + (table.cells[key]?.slots.count ?? 0) + (table.plainCells[key]?.slots.count ?? 0)
        }
    }

    /// `(distance, key, id)` order, the key by its UTF-8 bytes (PostgreSQL's `COLLATE "C"`).
    static func precedes(_ a: (Double, String, Int64), _ b: (Double, String, Int64)) -> Bool {
        if a.0 != b.0 { return a.0 < b.0 }
        return SlotOrder.precedes((a.1, a.2), (b.1, b.2))
    }
}
