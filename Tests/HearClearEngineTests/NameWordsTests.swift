import HearClearModel
import Testing

/// The words search by name compares (``NameWords``), by hand.
@Suite("Name words: folded, split, matched by their starts")
struct NameWordsTests {
    @Test("case, accents, ligatures, full-width letters and stroked letters fold away")
    func folding() {
        #expect(NameWords.words(of: "Quiet Corner Café") == ["quiet", "corner", "cafe"])
        #expect(NameWords.words(of: "CAFÉ") == ["cafe"])
        #expect(NameWords.words(of: "Straße") == ["strasse"])
        #expect(NameWords.words(of: "Łódź Smørrebrød Ærø") == ["lodz", "smorrebrod", "aero"])
        #expect(NameWords.words(of: "ＡＢＣ ﬁsh") == ["abc", "fish"])
        #expect(NameWords.words(of: "İstanbul") == ["istanbul"])
        #expect(NameWords.words(of: "ΑΘΗΝΑ σοφός") == ["αθηνα", "σοφοσ"])
        #expect(NameWords.words(of: "Москва кафе") == ["москва", "кафе"])
        #expect(NameWords.words(of: "ガード") == NameWords.words(of: "カード"))
    }

    @Test("anything but letters and digits separates words")
    func splitting() {
        #expect(NameWords.words(of: "The King's Arms") == ["the", "king", "s", "arms"])
        #expect(NameWords.words(of: "100% Bar") == ["100", "bar"])
        #expect(NameWords.words(of: "  --%_  ") == [])
        #expect(NameWords.key(of: "The King's Arms") == " the king s arms")
        #expect(NameWords.key(of: "%") == "")
        #expect(NameWords.searchWords(of: "quiet QUIET corn") == ["quiet", "corn"])
    }

    @Test("each word of a search starts a word of the name, in any order")
    func matching() {
        let key = NameWords.key(of: "Quiet Corner Cafe")
        for text in ["quiet", "corner", "quiet corn", "Quiet Corner", "quiet corner cafe", "café quiet", "CORN q"] {
            #expect(NameWords.key(key, startsWordsWith: NameWords.searchWords(of: text)), "\(text)")
        }
        for text in ["uiet", "quiet corner pub", "quieter", "orner", "quietcorner"] {
            #expect(!NameWords.key(key, startsWordsWith: NameWords.searchWords(of: text)), "\(text)")
        }
    }

    @Test("keys order as PostgreSQL's COLLATE \"C\": by UTF-8 bytes")
    func order() {
        #expect(NameWords.precedes(" arms park", " the king s arms"))
        #expect(NameWords.precedes(" z", " é"))
        #expect(!NameWords.precedes(" b", " b"))
    }
}
