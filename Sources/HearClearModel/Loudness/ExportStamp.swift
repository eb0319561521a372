import Foundation

/// What the export's validators are made of: the last change to a cell or to a venue with cells,
/// and how many cells and venues there are (a deleted cell changes the count, not the time).
public struct ExportStamp: Sendable, Equatable {
    public var lastChange: Date?
    public var cells: Int
    public var venues: Int

    public init(lastChange: Date? = nil, cells: Int, venues: Int) {
        self.lastChange = lastChange
        self.cells = cells
        self.venues = venues
    }
}
