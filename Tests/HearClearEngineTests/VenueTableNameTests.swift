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
            for prefix in VenueTable.namePrefixes(key) { expected[prefix, default: []].insert(Int32(slot)) }
        }
        #expect(table.nameBuckets == expected, sourceLocation: sourceLocation)
    }

    @Test("read again, renamed, replaced by external id (its own slot back or another's), taken out")
    func buckets() {
        var table = VenueTable(grid: SearchGrid())
        table.insert(Self.row(1, "a", "Quiet Corner Cafe"))
        table.insert(Self.row(2, "b", "Golden Tavern"))
        Self.expectConsistent(table)
        // Read again under the same name (its count changed): same buckets.
        table.insert(Self.row(1, "a", "Quiet Corner Cafe", checkins: 3))
        Self.expectConsistent(table)
        #expect(table.nameBuckets["qui"] == [table.slotByID[1]!])
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
}
