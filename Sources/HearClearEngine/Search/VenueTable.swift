import Foundation
import HearClearModel
import LoudnessCore

/// The search index's venues (docs/ARCHITECTURE.md, "Search"): every venue by slot, found by id
/// and external id, and placed in the cells of a ``SearchGrid``, each cell's venues in contiguous
/// arrays (their slots, and their points prepared for measuring). Not thread-safe: ``SearchIndex``
/// guards it.
struct VenueTable: Sendable {
    /// One grid cell's venues, in parallel arrays of what a search reads of every venue in a
    /// touched cell (so it never copies a venue's record out until it is on the page).
    struct GridCell: Sendable {
        var slots: [Int32] = []
        var latitudes: [Double] = []
        var longitudes: [Double] = []
        var points: [SphereDistance.Point] = []
        var ids: [Int64] = []
        var categories: [Int32] = []
        /// Not counted references: the venue's record (``venues``) holds each.
        var levels: [Unmanaged<IndexedVenue.Levels>?] = []
    }

    /// A venue-local clock: a zone or a fixed UTC offset (search's, `venue_cell_index`).
    enum ClockKey: Hashable, Sendable {
        case zone(String)
        case offset(minutes: Int)
    }

    let grid: SearchGrid
    private(set) var venues: [IndexedVenue?] = []
    private var freeSlots: [Int32] = []
    private(set) var slotByID: [Int64: Int32] = [:]
    private(set) var slotByExternalID: [String: Int32] = [:]
    /// The grid's cells of the venues with cells, and of those without: a search with a level
    /// filter reads only the first, as PostgreSQL reads only `venue_levels`.
    private(set) var cells: [SearchGrid.Cell: GridCell] = [:]
    private(set) var plainCells: [SearchGrid.Cell: GridCell] = [:]
    private(set) var categories: [String: Int32] = [:]
    /// Zones and categories, one copy each: every venue's document shares it.
    private var shared: [String: String] = [:]
    private(set) var clocks: [ClockKey: Int32] = [:]
    /// By clock number: the clock, `nil` for a zone Foundation does not know (PostgreSQL does).
    private(set) var clockList: [VenueClock?] = []
    /// Venues by the first two and the first three scalars of each word of their name key (words
    /// of one scalar are in none): where a search by name with such a word looks.
    private(set) var nameBuckets = NameBuckets()
    /// By slot: the venue's name key (`venues.name_key`, ``NameWords/key(of:)``), what a search
    /// by name compares; kept here, not in the record, so that a search reads it without copying
    /// the record.
    private(set) var nameKeys: [String?] = []
    /// By slot: the venue's id and category number (−1 for none; −2 for a free slot), for the
    /// same reason.
    private(set) var slotIDs: [Int64] = []
    private(set) var slotCategories: [Int32] = []
    /// By slot: the venue's point, which a search by name near a point measures before it reads
    /// the key, without copying the record.
    private(set) var slotPoints: [SphereDistance.Point] = []
    /// What the venues take, estimated (``IndexedVenue/estimatedBytes``, ``nameKeyBytes(_:)``).
    private(set) var bytes = 0
    /// Venues with a `venue_levels` row.
    private(set) var venuesWithLevels = 0

    init(grid: SearchGrid) {
        self.grid = grid
    }

    var count: Int { slotByID.count }

    /// Puts a venue's row in (replacing what the index held of the same venue, by id).
    mutating func insert(_ row: SearchIndexRow) {
        // A venue read again under the same name (its levels changed: the usual case) keeps its
        // name buckets when it gets its slot back, as it does unless another venue's was freed.
        let kept = slotByID[row.venue.id].flatMap { nameKeys[Int($0)] == row.nameKey ? $0 : nil }
        remove(id: row.venue.id, keepingName: kept != nil)
        if let other = slotByExternalID[row.venue.externalID] { remove(slot: other) }
        var row = row
        row.venue.timezone = row.venue.timezone.map { share($0) }
        row.venue.category = row.venue.category.map { share($0) }
        var category: Int32 = -1
        if let name = row.venue.category { category = categoryNumber(name) }
        var levels: IndexedVenue.Levels?
        if let stored = row.levels { levels = packed(stored) }
        let venue = IndexedVenue(
            venue: row.venue, checkins: row.checkins, category: category,
            point: SphereDistance.Point(latitude: row.venue.latitude, longitude: row.venue.longitude), levels: levels)
        let slot: Int32
        if let free = freeSlots.popLast() {
            slot = free
            venues[Int(slot)] = venue
            nameKeys[Int(slot)] = row.nameKey
            slotIDs[Int(slot)] = row.venue.id
            slotCategories[Int(slot)] = category
            slotPoints[Int(slot)] = venue.point
        } else {
            slot = Int32(venues.count)
            venues.append(venue)
            nameKeys.append(row.nameKey)
            slotIDs.append(row.venue.id)
            slotCategories.append(category)
            slotPoints.append(venue.point)
        }
        slotByID[row.venue.id] = slot
        slotByExternalID[row.venue.externalID] = slot
        let cell = grid.cell(latitude: row.venue.latitude, longitude: row.venue.longitude)
        if venue.levels != nil {
            cells[cell, default: GridCell()].append(slot: slot, venue: venue)
        } else {
            plainCells[cell, default: GridCell()].append(slot: slot, venue: venue)
        }
        if slot != kept {
            if let kept {
                nameBuckets.remove(
                    kept, key: row.nameKey,
                    by: SlotOrder(keys: nameKeys, ids: slotIDs, moving: (kept, row.nameKey, row.venue.id)))
            }
            nameBuckets.insert(slot, key: row.nameKey, by: SlotOrder(keys: nameKeys, ids: slotIDs))
        }
        bytes += venue.estimatedBytes + Self.nameKeyBytes(row.nameKey)
        if venue.levels != nil { venuesWithLevels += 1 }
    }

    /// Orders every name bucket by name key, and keeps them so from then on (a bucket made later
    /// too): once a table is loaded, before it answers, so that no search waits for a sort.
    mutating func orderNameBuckets() {
        nameBuckets.orderAll(by: SlotOrder(keys: nameKeys, ids: slotIDs))
    }

    /// Takes out the venue with this external id, if held.
    mutating func remove(externalID: String) {
        if let slot = slotByExternalID[externalID] { remove(slot: slot) }
    }

    private mutating func remove(id: Int64, keepingName: Bool) {
        if let slot = slotByID[id] { remove(slot: slot, keepingName: keepingName) }
    }

    /// Takes out the venue in `slot`; with `keepingName`, its slot stays in its name buckets (the
    /// caller puts it back under the same name, or takes it out of them).
    private mutating func remove(slot: Int32, keepingName: Bool = false) {
        guard let venue = venues[Int(slot)] else { return }
        let cell = grid.cell(latitude: venue.venue.latitude, longitude: venue.venue.longitude)
        if venue.levels != nil {
            cells[cell]?.remove(slot: slot)
            if cells[cell]?.slots.isEmpty == true { cells[cell] = nil }
        } else {
            plainCells[cell]?.remove(slot: slot)
            if plainCells[cell]?.slots.isEmpty == true { plainCells[cell] = nil }
        }
        if !keepingName {
            nameBuckets.remove(slot, key: nameKeys[Int(slot)], by: SlotOrder(keys: nameKeys, ids: slotIDs))
        }
        bytes -= venue.estimatedBytes + Self.nameKeyBytes(nameKeys[Int(slot)])
        slotByID[venue.venue.id] = nil
        slotByExternalID[venue.venue.externalID] = nil
        venues[Int(slot)] = nil
        nameKeys[Int(slot)] = nil
        slotCategories[Int(slot)] = -2
        freeSlots.append(slot)
        if venue.levels != nil { venuesWithLevels -= 1 }
    }

    /// What a name key takes: its heap storage and its slot in ``nameKeys``, the venue's id,
    /// category and point by slot, and its places in the name buckets, two per word (a slot of 4
    /// bytes in slot order, 4 more in key order once the buckets are ordered, and at most 8 for a
    /// dense bucket's bits, which never take more than twice its slots).
    static func nameKeyBytes(_ key: String?) -> Int {
        IndexedVenue.heapBytes(key) + 16 + 8 + 4 + MemoryLayout<SphereDistance.Point>.stride + 2 * 16
            * (key?.utf8.count(where: { $0 == 0x20 }) ?? 0)
    }

    /// The one copy of `text` the table keeps (counted once in ``bytes``).
    private mutating func share(_ text: String) -> String {
        if let copy = shared[text] { return copy }
        shared[text] = text
        bytes += 2 * IndexedVenue.heapBytes(text) + 16
        return text
    }

    private mutating func categoryNumber(_ category: String) -> Int32 {
        if let number = categories[category] { return number }
        let number = Int32(categories.count)
        categories[category] = number
        return number
    }

    private mutating func clockNumber(_ levels: SearchIndexRow.Levels) -> Int32 {
        let key: ClockKey
        if let zone = levels.timezone {
            key = .zone(zone)
        } else if let offset = levels.utcOffsetMinutes {
            key = .offset(minutes: offset)
        } else {
            return -1
        }
        if let number = clocks[key] { return number }
        let number = Int32(clockList.count)
        clocks[key] = number
        switch key {
        case .zone(let zone): clockList.append(VenueClock(timeZoneIdentifier: zone))
        case .offset(let minutes): clockList.append(VenueClock(utcOffsetMinutes: minutes))
        }
        return number
    }

    private mutating func packed(_ row: SearchIndexRow.Levels) -> IndexedVenue.Levels {
        IndexedVenue.Levels(
            clock: clockNumber(row), overallDBFS: row.overallDBFS ?? .nan, levels: HourMap(row.levelsDBFS),
            measured: HourMap(
                zip(row.levelsDBFS, row.measured).map { level, measured in measured ? level : nil }),
            cells: HourMap(pairs: row.cells.map { (hour: $0.index, value: IndexedVenue.PackedCell($0)) }))
    }
}

extension VenueTable.GridCell {
    mutating func append(slot: Int32, venue: IndexedVenue) {
        slots.append(slot)
        latitudes.append(venue.venue.latitude)
        longitudes.append(venue.venue.longitude)
        points.append(venue.point)
        ids.append(venue.venue.id)
        categories.append(venue.category)
        levels.append(venue.levels.map { Unmanaged.passUnretained($0) })
    }

    mutating func remove(slot: Int32) {
        guard let position = slots.firstIndex(of: slot) else { return }
        let last = slots.count - 1
        slots.swapAt(position, last)
        latitudes.swapAt(position, last)
        longitudes.swapAt(position, last)
        points.swapAt(position, last)
        ids.swapAt(position, last)
        categories.swapAt(position, last)
        levels.swapAt(position, last)
        slots.removeLast()
        latitudes.removeLast()
        longitudes.removeLast()
        points.removeLast()
        ids.removeLast()
        categories.removeLast()
        levels.removeLast()
    }
}

extension IndexedVenue {
    /// What one venue takes in the index, estimated (its name key apart:
    /// ``VenueTable/nameKeyBytes(_:)``): its record, the heap storage of its longer
    /// strings (Swift keeps up to 15 UTF-8 bytes inline), its packed hours, its place in its grid
    /// cell and in the two lookups by id.
    var estimatedBytes: Int {
        let heap = Self.heapBytes
        var bytes = MemoryLayout<IndexedVenue?>.stride
        // Zones and categories are shared (``VenueTable/share(_:)``), counted once there.
        bytes += heap(venue.externalID) + heap(venue.name) + heap(venue.address)
        // Grid cell: slot, latitude, longitude, point, id, category, levels; lookups: id and
        // external id entries.
        bytes += 4 + 8 + 8 + MemoryLayout<SphereDistance.Point>.stride + 8 + 4 + 8
        bytes += (8 + 4) + (16 + 4 + heap(venue.externalID))
        if let levels {
            bytes += 16 + 2 * MemoryLayout<Int32>.stride + 3 * MemoryLayout<HourMap<Float>>.stride + 3 * 32
            bytes += levels.levels.count * MemoryLayout<Float>.stride
            bytes += levels.measured.count * MemoryLayout<Float>.stride
            bytes += levels.cells.count * MemoryLayout<IndexedVenue.PackedCell>.stride
        }
        return bytes
    }

    /// The heap storage of a string: none up to 15 UTF-8 bytes (kept inline), else a header and
    /// the bytes.
    static func heapBytes(_ text: String?) -> Int {
        guard let count = text?.utf8.count, count > 15 else { return 0 }
        return 32 + count
    }
}
