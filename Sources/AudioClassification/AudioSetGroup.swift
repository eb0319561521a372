import LoudnessCore

/// What an AudioSet class says about a room, for HearClear's sound character
/// (docs/ARCHITECTURE.md, "What kind of loud": the same table in words).
///
/// *Why these:* a venue's character is about what a person with hearing aids or tinnitus meets:
/// people talking, music (and whether its bass stands out), or a steady noise (ventilation,
/// traffic, machines, rain and water, which a model trained on AudioSet calls by its source).
/// Classes of single events (a door, a dog, a cough) say nothing about the hour and are left out.
public enum AudioSetGroup: String, Sendable, CaseIterable {
    /// Speech, conversation, shouting, laughter, crowds and babble.
    case voices
    /// Music, instruments, singing and genres.
    case music
    /// Instruments and genres whose low end carries them (bass, bass drum, electronic dance music):
    /// music, and a mark of bass-heavy music.
    case bass
    /// Sounds that hold steady: wind, water and rain, engines and vehicles, machines, fans and air
    /// conditioning, hum and broadband noise.
    case steadyNoise
    /// The class "Silence".
    case silence

    /// The group of an AudioSet display name, from LoudnessCore's one table
    /// (`SoundLabelMapping.audioSet`, which the phone's classes use too); nil for the others.
    public init?(className: String) {
        switch SoundLabelMapping.soundClass(forAudioSet: className) {
        case .babble: self = .voices
        case .music: self = .music
        case .bassHeavyMusic: self = .bass
        case .steadyNoise: self = .steadyNoise
        case .quiet: self = .silence
        case .uncertain, nil: return nil
        }
    }

    /// Every class of AudioSet's music subtree (instruments and genres: YAMNet's outputs 132–276)
    /// is music, those the table names otherwise (bass) apart.
    static func isMusic(index: Int) -> Bool { (132...276).contains(index) }
}

extension AudioSetModel {
    /// Each output's group: the table, then the music subtree.
    static func groups(of names: [String]) -> [AudioSetGroup?] {
        names.enumerated().map { index, name in
            AudioSetGroup(className: name) ?? (AudioSetGroup.isMusic(index: index) ? .music : nil)
        }
    }
}
