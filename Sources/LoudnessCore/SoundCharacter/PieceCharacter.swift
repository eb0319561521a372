/// What cleaning finds of the character of one check-in's piece of a venue-local hour, over the
/// seconds it kept (docs/ARCHITECTURE.md, "Sound character" and "The phone's own classes"):
/// stored with the piece
/// (`checkin_hours`), so that a cell's character is pooled from its counted pieces without their
/// samples. Levels are 0.1 dB integers, as stored.
public struct PieceCharacter: Sendable, Equatable {
    /// Kept seconds in windows of each label, in ``SoundClass/allCases`` order.
    public var classSeconds: [Int]
    /// Every kept second's level (`average`, dBFS as sent, no model offset), 0.1 dB, ascending.
    public var levelsDdB: [Int16]
    /// Every kept second's LC − LA, 0.1 dB, ascending; empty when the check-in carries no LCeq.
    public var lcMinusLaDdB: [Int16]
    /// Of ``seconds``, those whose class the phone's own classes gave (``init(members:samples:spectra:phoneClasses:rules:)``);
    /// the others the spectra rules gave.
    public var phoneSeconds: Int

    /// The kept seconds.
    public var seconds: Int { levelsDdB.count }

    public init(classSeconds: [Int], levelsDdB: [Int16], lcMinusLaDdB: [Int16], phoneSeconds: Int = 0) {
        self.classSeconds = classSeconds
        self.levelsDdB = levelsDdB
        self.lcMinusLaDdB = lcMinusLaDdB
        self.phoneSeconds = phoneSeconds
    }

    /// The piece of the kept seconds `members` (ascending sample indexes of one hour), labelled
    /// window by window by the spectra rules.
    public init(
        members: [Int], samples: SessionSamples, spectra: SpectralSamples,
        rules: SecondCharacterRules = SecondCharacterRules()
    ) {
        self.init(members: members, samples: samples, spectra: spectra, phoneClasses: nil, rules: rules)
    }

    /// The piece of the kept seconds `members` (ascending sample indexes of one hour), from the
    /// check-in's spectra, its phone's classes, or both (at least one of them). Each kept second
    /// takes (docs/ARCHITECTURE.md, "The phone's own classes"):
    ///
    /// 1. the class of the phone's window holding it, when that class is not `uncertain`;
    /// 2. else, with spectra, the label of its spectra window (``SecondCharacter``: windows of 10
    ///    kept seconds, as without phone classes);
    /// 3. else (phone classes alone) `uncertain`, the phone's word for it.
    ///
    /// A second counts in ``phoneSeconds`` by 1 and 3. LC − LA and the levels come from the
    /// spectra and the levels as before, whatever gave the class.
    public init(
        members: [Int], samples: SessionSamples, spectra: SpectralSamples?, phoneClasses: PhoneClassWindows?,
        rules: SecondCharacterRules = SecondCharacterRules()
    ) {
        var labels = [SoundClass](repeating: .uncertain, count: members.count)
        if let spectra {
            var position = 0
            for window in SecondCharacter.windows(of: members, samples: samples, spectra: spectra, rules: rules) {
                for _ in 0..<window.seconds {
                    labels[position] = window.label
                    position += 1
                }
            }
        }
        var phoneSeconds = 0
        if let phoneClasses {
            let phone = phoneClasses.classes(at: members.map { samples.offsetsSeconds[$0] })
            for (position, soundClass) in phone.enumerated() {
                if let soundClass, soundClass != .uncertain {
                    labels[position] = soundClass
                    phoneSeconds += 1
                } else if spectra == nil {
                    phoneSeconds += 1
                }
            }
        }
        var classSeconds = [Int](repeating: 0, count: SoundClass.allCases.count)
        for label in labels { classSeconds[label.index] += 1 }
        self.classSeconds = classSeconds
        self.phoneSeconds = phoneSeconds
        levelsDdB = members.map { SpectralSamples.decidecibels(samples.averageDBFS[$0]) }.sorted()
        lcMinusLaDdB =
            spectra?.lceqDBFS.map { lceq in
                members.map { SpectralSamples.decidecibels(lceq[$0] - samples.averageDBFS[$0]) }.sorted()
            } ?? []
    }
}
