import Foundation

/// The words of a venue's name as search by name compares them (docs/ARCHITECTURE.md, "Search",
/// "By name"): case, accents and compatibility forms folded away, so that "Café" and "CAFE" are
/// one word.
///
/// A text is folded to lower case (Unicode's full mapping), decomposed by compatibility (NFKD:
/// "ﬁ" is "fi", a full-width "Ａ" is "A"), and every mark is dropped (the accents, but also the
/// vowel signs of Indic scripts: dropped alike from names and searches, so they still find each
/// other). A few Latin letters that carry their stroke in the letter itself are spelled as their
/// base (`ø` `o`, `ł` `l`, `đ` `d`, `ð` `d`, `ı` `i`, `ß` `ss`, `æ` `ae`, `œ` `oe`, `þ` `th`), and a
/// final sigma as a sigma. A word is a run of letters and digits; anything else separates words
/// ("King's" is "king" and "s"; scripts written without spaces are one word per run).
///
/// A venue's name is stored with its ``key(of:)`` (`venues.name_key`): PostgreSQL and the search
/// index compare those bytes, so they find the same venues and order them alike, by the key's
/// UTF-8 bytes (`COLLATE "C"`). Changing this folding needs a migration that sets every
/// `name_key` again.
public enum NameWords {
    /// Most words a search by name may have.
    public static let maximumSearchWords = 8

    /// The folded words of `text`, in order.
    public static func words(of text: String) -> [String] {
        var words: [String] = []
        var word = String.UnicodeScalarView()
        for scalar in text.lowercased().decomposedStringWithCompatibilityMapping.unicodeScalars {
            let properties = scalar.properties
            switch properties.generalCategory {
            case .nonspacingMark, .spacingMark, .enclosingMark:
                continue
            case .uppercaseLetter, .lowercaseLetter, .titlecaseLetter, .modifierLetter, .otherLetter,
                .decimalNumber, .letterNumber, .otherNumber:
                if let spelled = spelledAsBase[scalar] {
                    word.append(contentsOf: spelled.unicodeScalars)
                } else {
                    word.append(scalar)
                }
            default:
                if !word.isEmpty {
                    words.append(String(word))
                    word = String.UnicodeScalarView()
                }
            }
        }
        if !word.isEmpty { words.append(String(word)) }
        return words
    }

    /// What `venues.name_key` holds for a name: each folded word after a space (" the king s
    /// arms"), so that a word starts wherever a space is followed by it; empty for a name with no
    /// word.
    public static func key(of name: String) -> String {
        words(of: name).reduce(into: "") { key, word in
            key += " "
            key += word
        }
    }

    /// The words a search by name looks for: ``words(of:)`` of the text, each once, in order.
    /// A venue is found when every one starts a word of its name.
    public static func searchWords(of text: String) -> [String] {
        var seen = Set<String>()
        return words(of: text).filter { seen.insert($0).inserted }
    }

    /// Whether `key` (a ``key(of:)``) has a word starting with each of `words`, compared as bytes.
    public static func key(_ key: String, startsWordsWith words: [String]) -> Bool {
        var key = key
        return key.withUTF8 { bytes in
            words.allSatisfy { word in
                var word = word
                return word.withUTF8 { wordBytes in Self.contains(bytes, wordStart: wordBytes) }
            }
        }
    }

    /// Whether `bytes` holds a space followed by `word`.
    private static func contains(_ bytes: UnsafeBufferPointer<UInt8>, wordStart word: UnsafeBufferPointer<UInt8>)
        -> Bool
    {
        guard !word.isEmpty, bytes.count > word.count else { return false }
        var start = 0
        while start + word.count < bytes.count {
            if bytes[start] == 0x20 {
                var k = 0
                while k < word.count, bytes[start + 1 + k] == word[k] { k += 1 }
                if k == word.count { return true }
            }
            start += 1
        }
        return false
    }

    /// Letters whose decomposition keeps their stroke or ligature, spelled as their base.
    private static let spelledAsBase: [Unicode.Scalar: String] = [
        "ø": "o", "ł": "l", "đ": "d", "ð": "d", "ı": "i", "ß": "ss", "æ": "ae", "œ": "oe", "þ": "th", "ς": "σ",
        "ħ": "h", "ŧ": "t", "ƀ": "b", "ɨ": "i", "ŀ": "l",
    ]

    /// Orders two keys as PostgreSQL orders them `COLLATE "C"`: by their UTF-8 bytes.
    public static func precedes(_ a: String, _ b: String) -> Bool {
        a.utf8.lexicographicallyPrecedes(b.utf8)
    }
}
