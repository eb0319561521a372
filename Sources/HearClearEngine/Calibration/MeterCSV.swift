import Foundation

/// A sound level meter's per-second log: one `time,level` row a second, the time RFC 3339 with
/// its offset, the level its LAeq over that second in dB; `,`, `;` or a tab between them; an
/// optional header row; blank lines ignored. What meters export varies: this is the one form
/// accepted, and a row that is not in it is an error naming its line.
public enum MeterCSV {
    /// Most rows (a day of seconds).
    public static let maximumRows = 86_400

    /// A log not in the accepted form: the line at fault and why.
    public struct Failure: Error, Equatable, Sendable, CustomStringConvertible {
        public var line: Int
        public var reason: String
        public var description: String { "line \(line): \(reason)" }
    }

    /// Levels by whole second since 1970 (UTC).
    public static func parse(_ text: String) throws(Failure) -> [Int64: Double] {
        var levels: [Int64: Double] = [:]
        var number = 0
        for raw in text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline) {
            number += 1
            let line = raw.trimmingCharacters(in: .whitespaces)
            if line.isEmpty { continue }
            let fields = line.split(omittingEmptySubsequences: false) { $0 == "," || $0 == ";" || $0 == "\t" }
                .map {
                    $0.trimmingCharacters(in: .whitespaces).trimmingCharacters(in: CharacterSet(charactersIn: "\""))
                }
            guard fields.count >= 2 else {
                throw Failure(
                    line: number, reason: "expected time and level separated by a comma, not '\(line.prefix(60))'")
            }
            guard let time = RFC3339.parse(fields[0]) else {
                // A header row: the first row, without a single digit in its time column.
                if levels.isEmpty, !fields[0].contains(where: \.isNumber) { continue }
                throw Failure(
                    line: number, reason: "the time '\(fields[0].prefix(40))' is not RFC 3339 with its offset")
            }
            guard let level = Double(fields[1]), level.isFinite, (0...200).contains(level) else {
                throw Failure(
                    line: number, reason: "the level '\(fields[1].prefix(20))' is not a number of dB from 0 to 200")
            }
            levels[Int64(time.secondsSince1970.rounded(.down))] = level
            guard levels.count <= maximumRows else {
                throw Failure(line: number, reason: "more than \(maximumRows) rows")
            }
        }
        guard !levels.isEmpty else { throw Failure(line: number, reason: "no rows of time and level") }
        return levels
    }
}
