/// What cleaning finds of the character of one check-in's piece of a venue-local hour, over the
/// seconds it kept (docs/ARCHITECTURE.md, "Sound character"): stored with the piece
/// (`checkin_hours`), so that a cell's character is pooled from its counted pieces without their
/// samples. Levels are 0.1 dB integers, as stored.
public struct PieceCharacter: Sendable, Equatable {
    /// Kept seconds in windows of each label, in ``SoundClass/allCases`` order.
    public var classSeconds: [Int]
    /// Every kept second's level (`average`, dBFS as sent, no model offset), 0.1 dB, ascending.
    public var levelsDdB: [Int16]
    /// Every kept second's LC − LA, 0.1 dB, ascending; empty when the check-in carries no LCeq.
    public var lcMinusLaDdB: [Int16]

    /// The kept seconds.
    public var seconds: Int { levelsDdB.count }

    public init(classSeconds: [Int], levelsDdB: [Int16], lcMinusLaDdB: [Int16]) {
        self.classSeconds = classSeconds
        self.levelsDdB = levelsDdB
        self.lcMinusLaDdB = lcMinusLaDdB
    }

    /// The piece of the kept seconds `members` (ascending sample indexes of one hour), labelled
    /// window by window.
    public init(
        members: [Int], samples: SessionSamples, spectra: SpectralSamples,
        rules: SecondCharacterRules = SecondCharacterRules()
    ) {
        var classSeconds = [Int](repeating: 0, count: SoundClass.allCases.count)
        for window in SecondCharacter.windows(of: members, samples: samples, spectra: spectra, rules: rules) {
            classSeconds[window.label.index] += window.seconds
        }
        self.classSeconds = classSeconds
        levelsDdB = members.map { SpectralSamples.decidecibels(samples.averageDBFS[$0]) }.sorted()
        lcMinusLaDdB =
            spectra.lceqDBFS.map { lceq in
                members.map { SpectralSamples.decidecibels(lceq[$0] - samples.averageDBFS[$0]) }.sorted()
            } ?? []
    }
}
