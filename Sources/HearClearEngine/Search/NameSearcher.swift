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
/// (its first two or three); it reads the smallest, or with a point the grid's venues near it
/// when they are fewer, keeping those in every bucket before reading their keys; with only words
/// of one scalar, the grid near the point, or every venue.
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

    private struct Candidate {
        var distance: Double
        var key: String
        var id: Int64
        var slot: Int32
    }

    /// The page, or `nil` when a venue on it keeps its hours by a zone Foundation does not know
    /// (only PostgreSQL can tell its hour).
    func run() -> [SearchIndex.Hit]? {
        guard !words.isEmpty else { return [] }
        let categoryNumber: Int32?
        if let category {
            guard let number = table.categories[category] else { return [] }
            categoryNumber = number
        } else {
            categoryNumber = nil
        }
        let point = near.map { SphereDistance.Point(latitude: $0.latitude, longitude: $0.longitude) }
        let cap = near.map {
            SearchGrid.Cap(latitude: $0.latitude, longitude: $0.longitude, radiusMetres: radiusMetres)
        }
        let afterTuple = after.map { ($0.distanceMetres, afterKey ?? "", $0.venueID) }
        var candidates: [Candidate] = []

        // The buckets the words name (a word's first three scalars, or two), smallest first: every
        // venue found is in each, and testing a slot's place in a set is far cheaper than reading
        // its key (a cache miss or two for every venue read that way). A word naming no bucket:
        // no venue has a word that starts so.
        var buckets: [Set<Int32>] = []
        for word in words {
            guard let prefix = VenueTable.nameBucket(of: Substring(word).unicodeScalars) else { continue }
            guard let bucket = table.nameBuckets[prefix] else { return [] }
            buckets.append(bucket)
        }
        buckets.sort { $0.count < $1.count }
        let others = buckets.dropFirst()
        let keys = table.nameKeys
        let ids = table.slotIDs
        let categories = table.slotCategories
        // A word of two or three scalars is its bucket's name: a venue in that bucket has a word
        // starting with it, and its key need not be read to tell. Longer words, and words of
        // one scalar (in no bucket), are tested on the key.
        let toRead = words.filter {
            $0.unicodeScalars.count > VenueTable.namePrefixLength || $0.unicodeScalars.count < 2
        }
        func consider(_ slot: Int32) {
            let index = Int(slot)
            guard others.allSatisfy({ $0.contains(slot) }) else { return }
            if let categoryNumber, categories[index] != categoryNumber { return }
            // The key next, by slot: most venues left fail there, and the venue's record is read
            // only for its point, with a point.
            guard let key = keys[index], toRead.isEmpty || NameWords.key(key, startsWordsWith: toRead) else { return }
            var distance = 0.0
            if let point {
                guard let venuePoint = table.venues[index]?.point else { return }
                distance = SphereDistance.metres(from: venuePoint, to: point)
                guard distance <= radiusMetres else { return }
            }
            let id = ids[index]
            if let afterTuple {
                guard Self.precedes((afterTuple.0, afterTuple.1, afterTuple.2), (distance, key, id)) else { return }
            }
            candidates.append(Candidate(distance: distance, key: key, id: id, slot: slot))
        }

        let smallest = buckets.first
        if let cap, smallest.map({ $0.count > nearbyCount(cap) }) ?? true {
            // Near the point: the grid's venues there, each first tested against the smallest
            // bucket too.
            for gridKey in table.grid.cells(touching: cap) {
                for list in [table.cells, table.plainCells] {
                    guard let cell = list[gridKey] else { continue }
                    for k in cell.slots.indices
                    where cap.contains(latitude: cell.latitudes[k], longitude: cell.longitudes[k]) {
                        if let smallest, !smallest.contains(cell.slots[k]) { continue }
                        consider(cell.slots[k])
                    }
                }
            }
        } else if let smallest {
            for slot in smallest { consider(slot) }
        } else {
            for slot in keys.indices where keys[slot] != nil { consider(Int32(slot)) }
        }

        let page = Searcher.smallest(max(0, limit), of: candidates) {
            Self.precedes(($0.distance, $0.key, $0.id), ($1.distance, $1.key, $1.id))
        }
        var hits: [SearchIndex.Hit] = []
        hits.reserveCapacity(page.count)
        for candidate in page {
            guard let venue = table.venues[Int(candidate.slot)] else { continue }
            var cell: (index: Int, cell: IndexedVenue.PackedCell)?
            if let at, let levels = venue.levels, levels.clock >= 0 {
                guard let clock = table.clockList[Int(levels.clock)] else { return nil }
                let local = clock.localHour(at: at)
                let index = (local.weekday - 1) * 24 + local.hour
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
    private func nearbyCount(_ cap: SearchGrid.Cap) -> Int {
        table.grid.cells(touching: cap).reduce(0) { count, key in
            count + (table.cells[key]?.slots.count ?? 0) + (table.plainCells[key]?.slots.count ?? 0)
        }
    }

    /// `(distance, key, id)` order, the key by its UTF-8 bytes (PostgreSQL's `COLLATE "C"`).
    static func precedes(_ a: (Double, String, Int64), _ b: (Double, String, Int64)) -> Bool {
        if a.0 != b.0 { return a.0 < b.0 }
        if NameWords.precedes(a.1, b.1) { return true }
        if NameWords.precedes(b.1, a.1) { return false }
        return a.2 < b.2
    }
}
