import Foundation
import LoudnessCore
import Testing

@Suite("Loudness bands")
struct BandsTests {
    @Test func standardLabelsAtTheirBoundaries() {
        let bands = Bands.standard
        #expect(bands.label(for: 40) == "quiet")
        #expect(bands.label(for: 69.99) == "quiet")
        #expect(bands.label(for: 70) == "moderate")
        #expect(bands.label(for: 74.99) == "moderate")
        #expect(bands.label(for: 75) == "loud")
        #expect(bands.label(for: 79.99) == "loud")
        #expect(bands.label(for: 80) == "very loud")
        #expect(bands.label(for: 130) == "very loud")
    }

    @Test func standardBandsPassTheirOwnValidation() throws {
        #expect(try Bands(Bands.standard.bands) == Bands.standard)
        #expect(try Bands([Band(label: "any", belowDB: nil)]).label(for: 55) == "any")
    }

    @Test(arguments: [
        ([], BandsError.empty),
        ([Band(label: " ", belowDB: 70), Band(label: "loud", belowDB: nil)], .emptyLabel(index: 0)),
        (
            [Band(label: "quiet", belowDB: 70), Band(label: "Quiet ", belowDB: nil)],
            .duplicateLabel("Quiet ")
        ),
        (
            [
                Band(label: "a", belowDB: 70), Band(label: "b", belowDB: 70),
                Band(label: "c", belowDB: nil),
            ],
            .boundsNotIncreasing(index: 1)
        ),
        (
            [
                Band(label: "a", belowDB: 75), Band(label: "b", belowDB: 70),
                Band(label: "c", belowDB: nil),
            ],
            .boundsNotIncreasing(index: 1)
        ),
        (
            [Band(label: "a", belowDB: nil), Band(label: "b", belowDB: nil)],
            .unboundedBandNotLast(index: 0)
        ),
        ([Band(label: "a", belowDB: 70), Band(label: "b", belowDB: 80)], .lastBandBounded),
        ([Band(label: "a", belowDB: .nan), Band(label: "b", belowDB: nil)], .nonFiniteBound(index: 0)),
    ])
    func invalidBandsAreRefused(bands: [Band], error: BandsError) {
        #expect(throws: error) { try Bands(bands) }
        #expect(!error.description.isEmpty)
    }

    @Test func bandsEncodeAsOnTheWire() throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys

        let json = try String(decoding: encoder.encode(Bands.standard.bands), as: UTF8.self)

        #expect(
            json == #"[{"below":70,"label":"quiet"},{"below":75,"label":"moderate"},"#
                + #"{"below":80,"label":"loud"},{"label":"very loud"}]"#)
        let decoded = try JSONDecoder().decode([Band].self, from: Data(json.utf8))
        #expect(decoded == Bands.standard.bands)
    }
}
