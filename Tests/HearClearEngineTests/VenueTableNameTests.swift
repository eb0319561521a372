import Foundation
import HearClearModel
import LoudnessCore
import Testing

@testable import HearClearEngine

/// The search index's name buckets follow venues read again, renamed, taken out, and a venue
/// whose external id another takes over.
@Suite("Venue table: name buckets kept true")
struct VenueTableNameTests {
    static func row(_ id: Int64, _ externalID: String, _ name: String, checkins: Int = 0) -> SearchIndexRow {
        SearchIndexRow(
            venue: Venue(
                id: id, externalID: externalID, name: name, latitude: 51.5, longitude: -0.12,
                createdAt: Date(timeIntervalSince1970: 0), updatedAt: Date(timeIntervalSince1970: 0)),
            checkins: checkins, nameKey: NameWords.key(of: name), levels: nil)
    }

    /// Every bucket holds exactly the slots whose keys have a word starting so.
    static func expectConsistent(_ table: VenueTable, sourceLocation: SourceLocation = #_sourceLocation) {
        var expected: [String: Set<Int32>] = [:]
        for (slot, key) in table.nameKeys.enumerated() {
            for prefix in NameBuckets.prefixes(key) { expected[prefix, default: []].insert(Int32(slot)) }
        }
        #expect(table.nameBuckets.slotSets == expected, sourceLocation: sourceLocation)
        // In slot order, and (where kept) in the order of the names' keys, then ids.
        for (prefix, bucket) in table.nameBuckets.buckets {
            #expect(bucket.slots == bucket.slots.sorted(), "\(prefix)", sourceLocation: sourceLocation)
            // Where kept, the bits hold exactly the slots, and take at most twice their memory.
            if let bits = bucket.bits {
                var fromBits: [Int32] = []
                for (word, value) in bits.enumerated() {
                    for bit in 0..<64 where value & (1 << UInt64(bit)) != 0 { fromBits.append(Int32(word * 64 + bit)) }
                }
                #expect(fromBits == bucket.slots, "\(prefix)", sourceLocation: sourceLocation)
                #expect(bits.count * 64 <= bucket.count * 128 + 64, "\(prefix)", sourceLocation: sourceLocation)
            }
            let members = Set(bucket.slots)
            for slot in 0...Int32(table.nameKeys.count + 64) {
                #expect(bucket.contains(slot) == members.contains(slot), "\(prefix)", sourceLocation: sourceLocation)
            }
            guard let byKey = bucket.byKey else { continue }
            let ordered = bucket.slots.sorted { a, b in
                let (keyA, keyB) = (table.nameKeys[Int(a)]!, table.nameKeys[Int(b)]!)
                if keyA != keyB { return Array(keyA.utf8).lexicographicallyPrecedes(Array(keyB.utf8)) }
                return table.slotIDs[Int(a)] < table.slotIDs[Int(b)]
            }
            #expect(byKey == ordered, "\(prefix)", sourceLocation: sourceLocation)
        }
    }

    @Test(
        "read again, renamed, replaced by external id (its own slot back or another's), taken out",
        arguments: [false, true])
    func buckets(orderedByKey: Bool) {
        var table = VenueTable(grid: SearchGrid())
        table.insert(Self.row(1, "a", "Quiet Corner Cafe"))
        table.insert(Self.row(2, "b", "Golden Tavern"))
        // Ordered by key before the venues move (as once a search without a point read them),
        // the buckets stay so.
        if orderedByKey { table.orderNameBuckets() }
        Self.expectConsistent(table)
        // Read again under the same name (its count changed): same buckets.
        table.insert(Self.row(1, "a", "Quiet Corner Cafe", checkins: 3))
        Self.expectConsistent(table)
        #expect(table.nameBuckets["qui"]?.slots == [table.slotByID[1]!])
        // Renamed.
        table.insert(Self.row(1, "a", "Loud Bar"))
        Self.expectConsistent(table)
        #expect(table.nameBuckets["qui"] == nil)
        // Another id takes over "b"'s external id while venue 1 is read again: slots move.
        table.insert(Self.row(3, "b", "Golden Tavern"))
        table.insert(Self.row(1, "a", "Loud Bar", checkins: 4))
        Self.expectConsistent(table)
        #expect(table.count == 2)
        // Venue 1, same name, takes over "b": it gets venue 3's freed slot, not its own back.
        let own = table.slotByID[1]!
        table.insert(Self.row(1, "b", "Loud Bar"))
        Self.expectConsistent(table)
        #expect(table.slotByID[1] != own)
        #expect(table.count == 1)
        table.insert(Self.row(4, "a", "Loud Bar"))
        Self.expectConsistent(table)
        table.remove(externalID: "b")
        Self.expectConsistent(table)
        table.remove(externalID: "a")
        Self.expectConsistent(table)
        #expect(table.nameBuckets["lo"] == nil)
    }

    @Test("a bucket keeps bits while it is dense for its range, and lets them go once it is sparse")
    func bits() {
        var table = VenueTable(grid: SearchGrid())
        // "zeb" at the first and the last of 300 slots; "qui" in every one.
        for id in 1...300 {
            table.insert(Self.row(Int64(id), "v\(id)", id == 1 || id == 300 ? "Quiet Zebra" : "Quiet Bar \(id)"))
        }
        #expect(table.nameBuckets["qui"]?.bits != nil)
        #expect(table.nameBuckets["zeb"]?.bits == nil)
        #expect(table.nameBuckets["zeb"]?.contains(table.slotByID[300]!) == true)
        Self.expectConsistent(table)
        // Renaming all but the last three out of "qui": three slots over a range of 300 are sparse.
        for id in 1...297 { table.insert(Self.row(Int64(id), "v\(id)", "Loud Bar \(id)")) }
        #expect(table.nameBuckets["qui"]?.count == 3)
        #expect(table.nameBuckets["qui"]?.bits == nil)
        #expect(table.nameBuckets["lou"]?.bits != nil)
        Self.expectConsistent(table)
        // Dense again.
        for id in 1...297 { table.insert(Self.row(Int64(id), "v\(id)", "Quiet Bar \(id)")) }
        #expect(table.nameBuckets["qui"]?.bits != nil)
        Self.expectConsistent(table)
    }

    @Test("a bucket kept in key order holds names alike by id, through venues coming, renamed and going")
    func keyOrder() {
        var table = VenueTable(grid: SearchGrid())
        var random = SystemRandomNumberGenerator()
        let names = ["Bar", "Bar Italia", "bar", "Barista", "Bär", "Old Bar", "Bar 2", "Barn Owl", "Crowbar"]
        for id in Array(1...40).shuffled(using: &random) {
            table.insert(Self.row(Int64(id), "v\(id)", names[id % names.count]))
        }
        // Every bucket, as a load orders them.
        table.orderNameBuckets()
        #expect(table.nameBuckets.buckets.values.allSatisfy { $0.byKey?.count == $0.count })
        Self.expectConsistent(table)
        for id in Array(1...40).shuffled(using: &random).prefix(15) {
            table.insert(Self.row(Int64(id), "v\(id)", names[(id + 3) % names.count]))
            Self.expectConsistent(table)
        }
        for id in Array(41...60).shuffled(using: &random) {
            table.insert(Self.row(Int64(id), "v\(id)", names[id % names.count]))
        }
        for id in Array(1...60).shuffled(using: &random).prefix(20) { table.remove(externalID: "v\(id)") }
        Self.expectConsistent(table)
        #expect(table.count == 40)
    }
}
