import Foundation
import HearClearModel

extension UTCMonth {
    /// The partition's name, `checkins_YYYY_MM`, read back; `nil` for any other name.
    public init?(partitionName name: String) {
        let prefix = "checkins_"
        guard name.hasPrefix(prefix) else { return nil }
        let rest = name.dropFirst(prefix.count)
        let characters = Array(rest.utf8)
        guard characters.count == 7, characters[4] == UInt8(ascii: "_") else { return nil }
        self.init(parsing: String(decoding: characters[0..<4] + [UInt8(ascii: "-")] + characters[5..<7], as: UTF8.self))
    }

    /// `checkins_YYYY_MM`, the name `checkins_partition(instant)` (migration 0020) gives its partition.
    public var partitionName: String {
        String(format: "checkins_%04d_%02d", year, month)
    }
}
