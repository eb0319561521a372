import Foundation
import HearClearModel
import LoudnessCore

/// One search over a ``VenueTable``, with exactly the semantics of ``VenueSearchRepository``'s
/// queries (docs/ARCHITECTURE.md, "Search"):
///
/// * within the radius: `distance ≤ radius`, the distance from the venue to the point on
///   PostGIS's sphere (``SphereDistance``, the same double as `location <-> point`);
/// * with a level filter only venues with cells (`venue_levels`) are candidates, else every venue;
/// * a venue's level is, with `at`, its hour's level at the venue-local hour of `at` by its clock,
///   else its overall level; rounded as SQL rounds, `floor(x · 10 + 0.5) / 10`, from the stored
///   `real` plus the reference offset;
/// * filters: level present, `≤ maximumDB`, `< belowDB`, band (`width_bucket` over the bands'
///   upper bounds) among `bandIndexes`;
/// * order `(levelKey, distance, id)`, the level key being, quietest first, the level (1e9 for
///   none), nearest first 0; after a cursor, strictly greater keys.
struct Searcher {
    let table: VenueTable
    let query: VenueSearchQuery
    let referenceOffsetDB: Double

    /// What stands in for "no level" in the level order (as in SQL).
    static let noLevelKey = 1.0e9

    private struct Candidate {
        var key: Double
        var distance: Double
        var id: Int64
        var slot: Int32
        var level: Double?
        var hour: Int?
    }

    /// The page, or `nil` when a candidate's zone is unknown to Foundation (only PostgreSQL can
    /// tell its hour).
    func run() -> [SearchIndex.Hit]? {
        let filter = query.filter.map(LevelTest.init)
        let byLevel = query.order == .level
        let point = SphereDistance.Point(latitude: query.latitude, longitude: query.longitude)
        var category: Int32?
        if let name = query.category {
            guard let number = table.categories[name] else { return [] }
            category = number
        }
        let afterKey = query.after.map { after in byLevel ? (after.levelDB ?? Self.noLevelKey) : 0 }
        var hours = query.at.map { HoursByClock(clocks: table.clockList, at: $0) }
        var candidates: [Candidate] = []
        let cap = SearchGrid.Cap(latitude: query.latitude, longitude: query.longitude, radiusMetres: query.radiusMetres)
        // What the loop reads, as locals (a closure capturing `self` would copy the table's references).
        let radius = query.radiusMetres
        let excluded = query.excludingVenueID
        let after = query.after
        let offset = referenceOffsetDB
        // With a level filter only venues with cells can pass (PostgreSQL then reads `venue_levels`).
        let lists = filter == nil ? [table.cells, table.plainCells] : [table.cells]
        // Nearest first with no level filter, a venue's hour is read only once it is on the page
        // (``hits(_:hoursRead:hours:)``), and the page is pruned (``Pruning``: `bound`).
        let levelsDecide = filter != nil || byLevel
        let limit = max(0, query.limit)
        let prune = !levelsDecide && limit > 0
        var bound: Double?
        for cell in gridCells(touching: cap, of: lists, nearestFirstTo: prune ? point : nil) {
            for k in 0..<cell.slots.count {
                guard cap.contains(latitude: cell.latitudes[k], longitude: cell.longitudes[k]) else { continue }
                if let category, cell.categories[k] != category { continue }
                let id = cell.ids[k]
                if id == excluded { continue }
                if let bound, Pruning.latitudeMetres(cell.points[k], point) > bound { continue }
                // The hour and level first: with a filter most venues fail there, before measuring.
                let reading =
                    levelsDecide
                    ? Self.reading(cell.levels[k], hours: &hours, offset: offset) : .level(nil, hour: nil)
                // A zone only PostgreSQL knows: only it can tell the hour.
                guard case .level(let level, let hour) = reading else { return nil }
                if let filter, !filter.passes(level) { continue }
                let distance = SphereDistance.metres(from: cell.points[k], to: point)
                guard distance <= radius else { continue }
                let key = byLevel ? (level ?? Self.noLevelKey) : 0
                if let after, let afterKey {
                    guard (key, distance, id) > (afterKey, after.distanceMetres, after.venueID) else { continue }
                }
                let candidate = Candidate(
                    key: key, distance: distance, id: id, slot: cell.slots[k], level: level, hour: hour)
                guard prune else {
                    candidates.append(candidate)
                    continue
                }
                // The page so far, in order: the candidate takes its place if it is before the last.
                Self.keep(candidate, in: &candidates, limit: limit, by: Self.precedes)
                if candidates.count == limit { bound = candidates.last?.distance }
            }
        }
        let page = prune ? candidates : Self.smallest(limit, of: candidates, by: Self.precedes)
        return hits(page, hoursRead: levelsDecide, hours: &hours)
    }

    /// The grid's cells of `lists` that the cap's box touches; with a point, those nearest it first.
    private func gridCells(
        touching cap: SearchGrid.Cap, of lists: [[SearchGrid.Cell: VenueTable.GridCell]],
        nearestFirstTo point: SphereDistance.Point?
    ) -> [VenueTable.GridCell] {
        var found: [VenueTable.GridCell] = []
        for gridKey in table.grid.cells(touching: cap) {
            for list in lists { if let cell = list[gridKey] { found.append(cell) } }
        }
        if let point { found.sort { Pruning.nearness($0, point) < Pruning.nearness($1, point) } }
        return found
    }

    private static func precedes(_ a: Candidate, _ b: Candidate) -> Bool {
        (a.key, a.distance, a.id) < (b.key, b.distance, b.id)
    }

    /// Puts `element` in `page` (in order by `less`, at most `limit`) where it belongs, if it does:
    /// most elements, once the page is full, are turned away by one comparison with its last.
    static func keep<T>(_ element: T, in page: inout [T], limit: Int, by less: (T, T) -> Bool) {
        if page.count == limit {
            guard let last = page.last, less(element, last) else { return }
            page.removeLast()
        }
        var low = 0
        var high = page.count
        while low < high {
            let middle = (low + high) / 2
            if less(element, page[middle]) { high = middle } else { low = middle + 1 }
        }
        page.insert(element, at: low)
    }

    /// Nearest first with no level filter, the cells nearest the point are read first, and once
    /// `limit` candidates are kept the farthest of them bounds the page (`bound` in ``run()``). A
    /// venue's distance is at least the sphere's radius times its difference in latitude from the
    /// point (no path between two parallels is shorter than the meridian's), so a venue farther
    /// than the bound in latitude alone, by more than a millimetre (far above the rounding of
    /// either side), cannot be on the page.
    private enum Pruning {
        static func latitudeMetres(_ venue: SphereDistance.Point, _ point: SphereDistance.Point) -> Double {
            SphereDistance.radiusMetres * abs(venue.latitude - point.latitude) - 0.001
        }

        /// How near a grid cell is to the point, to read the nearest first: by the latitude of its
        /// first venue (its band's venues are all within one band's height of it).
        static func nearness(_ cell: VenueTable.GridCell, _ point: SphereDistance.Point) -> Double {
            cell.points.first.map { abs($0.latitude - point.latitude) } ?? .infinity
        }
    }

    /// A venue's level as a search sees it: with `hours`, its level at its hour of the search's
    /// instant (and that hour), else its overall level.
    private enum Reading {
        case level(Double?, hour: Int?)
        /// Its hours are kept by a zone Foundation does not know.
        case unknownZone
    }

    /// `levels`' ``Reading``, rounded with `offset`. Unmanaged and read in place: the venue's
    /// record holds it, and reading it costs no reference counting (which was a fifth of a search).
    private static func reading(
        _ levels: Unmanaged<IndexedVenue.Levels>?, hours: inout HoursByClock?, offset: Double
    ) -> Reading {
        guard let levels else { return .level(nil, hour: nil) }
        return levels._withUnsafeGuaranteedRef { levels in
            guard hours != nil else {
                return .level(levels.overallDBFS.isNaN ? nil : rounded(Double(levels.overallDBFS), offset), hour: nil)
            }
            guard levels.clock >= 0 else { return .level(nil, hour: nil) }
            guard let hour = hours?.hour(clock: Int(levels.clock)) else { return .unknownZone }
            return .level(levels.levels[hour].map { rounded(Double($0), offset) }, hour: hour)
        }
    }

    /// The hour of the week (0…167) of one instant by each clock of the table, each found once.
    private struct HoursByClock {
        let clocks: [VenueClock?]
        let at: Date
        /// By clock: −2 not found yet, −1 a zone Foundation does not know.
        private var hours: [Int]

        init(clocks: [VenueClock?], at: Date) {
            self.clocks = clocks
            self.at = at
            hours = [Int](repeating: -2, count: clocks.count)
        }

        /// The hour by clock `clock`; `nil` when its zone is one Foundation does not know.
        mutating func hour(clock: Int) -> Int? {
            if hours[clock] == -2 { hours[clock] = clocks[clock]?.localHour(at: at).hourOfWeek ?? -1 }
            return hours[clock] >= 0 ? hours[clock] : nil
        }
    }

    /// The page's hits; with `hoursRead` false each venue's hour of `at` is read here, from `hours`
    /// (each clock's hour found once a search). `nil` when a venue on the page keeps its hours by a
    /// zone Foundation does not know.
    private func hits(_ page: [Candidate], hoursRead: Bool, hours: inout HoursByClock?) -> [SearchIndex.Hit]? {
        let byLevel = query.order == .level
        var hits: [SearchIndex.Hit] = []
        hits.reserveCapacity(page.count)
        for candidate in page {
            guard let venue = table.venues[Int(candidate.slot)] else { continue }
            let levels = venue.levels
            var hour = candidate.hour
            if !hoursRead, hours != nil, let levels, levels.clock >= 0 {
                guard let read = hours?.hour(clock: Int(levels.clock)) else { return nil }
                hour = read
            }
            let overall = levels.flatMap { $0.overallDBFS.isNaN ? nil : rounded(Double($0.overallDBFS)) }
            let cell = hour.flatMap { hour in levels?.cells[hour].map { (hour, $0) } }
            hits.append(
                SearchIndex.Hit(
                    venue: venue.venue, checkins: venue.checkins, distanceMetres: candidate.distance,
                    overallDB: overall,
                    cell: cell,
                    position: .init(
                        levelDB: byLevel ? candidate.level : nil, distanceMetres: candidate.distance,
                        venueID: venue.venue.id)))
        }
        return hits
    }

    /// A stored level made calibrated and rounded as SQL does.
    func rounded(_ dbfs: Double) -> Double { Self.rounded(dbfs, referenceOffsetDB) }

    /// `floor((dbfs + offset) · 10 + 0.5) / 10`.
    static func rounded(_ dbfs: Double, _ offset: Double) -> Double {
        ((dbfs + offset) * 10 + 0.5).rounded(.down) / 10
    }

    /// A level filter, ready for testing thousands of levels: no optionals, the bands as a bit set.
    struct LevelTest {
        let maximum: Double
        let below: Double
        let bounds: [Double]
        /// Bit `i` set: band `i` passes; `nil`: no band filter.
        let bands: UInt64?

        init(_ filter: VenueSearchQuery.LevelFilter) {
            maximum = filter.maximumDB ?? .infinity
            below = filter.belowDB ?? .infinity
            bounds = filter.bandBounds
            if filter.bandIndexes.isEmpty {
                bands = nil
            } else {
                bands = filter.bandIndexes.reduce(UInt64(0)) { bits, index in
                    (0..<64).contains(index) ? bits | (1 << UInt64(index)) : bits
                }
            }
        }

        /// Whether a level passes (a venue without a level never does): `≤ maximum`, `< below`,
        /// and its band — `width_bucket(level, bounds)`, how many of the ascending bounds are
        /// ≤ level — among the bands.
        func passes(_ level: Double?) -> Bool {
            guard let level, level <= maximum, level < below else { return false }
            guard let bands else { return true }
            var band = 0
            for bound in bounds where bound <= level { band += 1 }
            return band < 64 && bands & (1 << UInt64(band)) != 0
        }
    }

    /// The `count` smallest of `elements` by `less`, in order.
    static func smallest<T>(_ count: Int, of elements: [T], by less: (T, T) -> Bool) -> [T] {
        guard elements.count > count else { return elements.sorted(by: less) }
        guard count > 0 else { return [] }
        if count * 8 >= elements.count { return Array(elements.sorted(by: less).prefix(count)) }
        // Keep the best `count` seen, sorted.
        var best = Array(elements.prefix(count)).sorted(by: less)
        for element in elements.dropFirst(count) { keep(element, in: &best, limit: count, by: less) }
        return best
    }
}
