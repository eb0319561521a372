import HearClearModel

/// Splits a `.sql` file into single statements, because PostgresNIO's extended protocol
/// takes one statement per query.
///
/// Understands `--` and `/* */` comments, single-quoted strings, double-quoted identifiers
/// and dollar-quoted bodies (`$$ … $$`, `$tag$ … $tag$`), so a `;` inside any of those does
/// not end a statement.
public enum SQLScript {
    public static func statements(_ sql: String) -> [String] {
        let text = Array(sql.unicodeScalars)
        var statements: [String] = []
        var current = String.UnicodeScalarView()
        var index = 0

        func flush() {
            let statement = String(current).trimmingCharacters(in: .whitespacesAndNewlines)
            if !statement.isEmpty { statements.append(statement) }
            current = String.UnicodeScalarView()
        }
        func starts(with token: String, at position: Int) -> Bool {
            let scalars = Array(token.unicodeScalars)
            guard position + scalars.count <= text.count else { return false }
            return Array(text[position..<position + scalars.count]) == scalars
        }
        func copy(until terminator: String, from start: Int) -> Int {
            var position = start
            while position < text.count && !starts(with: terminator, at: position) { position += 1 }
            let end = min(position + terminator.unicodeScalars.count, text.count)
            current.append(contentsOf: text[start..<end])
            return end
        }

        while index < text.count {
            let scalar = text[index]
            if starts(with: "--", at: index) {
                while index < text.count && text[index] != "\n" { index += 1 }
            } else if starts(with: "/*", at: index) {
                while index < text.count && !starts(with: "*/", at: index) { index += 1 }
                index = min(index + 2, text.count)
            } else if scalar == "'" || scalar == "\"" {
                current.append(scalar)
                index = copy(until: String(scalar), from: index + 1)
            } else if scalar == "$", let tag = dollarTag(text, at: index) {
                current.append(contentsOf: tag.unicodeScalars)
                index = copy(until: tag, from: index + tag.unicodeScalars.count)
            } else if scalar == ";" {
                flush()
                index += 1
            } else {
                current.append(scalar)
                index += 1
            }
        }
        flush()
        return statements
    }

    /// `$tag$` starting at `position`, if one does (`$1` parameters are not tags).
    private static func dollarTag(_ text: [Unicode.Scalar], at position: Int) -> String? {
        var end = position + 1
        while end < text.count,
            text[end] == "_" || text[end].properties.isAlphabetic
                || (end > position + 1 && text[end].properties.numericType != nil)
        {
            end += 1
        }
        guard end < text.count, text[end] == "$" else { return nil }
        return String(String.UnicodeScalarView(text[position...end]))
    }
}
