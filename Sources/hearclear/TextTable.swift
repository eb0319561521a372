/// The commands' plain text tables: columns padded to their widest cell, two spaces apart, each
/// line without trailing spaces.
enum TextTable {
    static func lines(header: [String], rows: [[String]]) -> [String] {
        let all = [header] + rows
        let widths = header.indices.map { column in all.map { $0[column].count }.max() ?? 0 }
        return all.map { row in
            row.enumerated().map { column, cell in
                cell.padding(toLength: widths[column], withPad: " ", startingAt: 0)
            }.joined(separator: "  ").trimmingCharacters(in: .whitespaces)
        }
    }

    static func render(header: [String], rows: [[String]]) -> String {
        lines(header: header, rows: rows).joined(separator: "\n")
    }
}
