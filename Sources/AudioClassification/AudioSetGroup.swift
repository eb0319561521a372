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

    /// The group of an AudioSet display name (as in YAMNet's class map); nil for the others.
    public init?(className: String) {
        guard let group = Self.table[className] else { return nil }
        self = group
    }

    static let voiceClasses = [
        "Speech", "Child speech, kid speaking", "Conversation", "Narration, monologue", "Babbling",
        "Speech synthesizer", "Shout", "Bellow", "Whoop", "Yell", "Children shouting", "Screaming", "Whispering",
        "Laughter", "Giggle", "Snicker", "Belly laugh", "Chuckle, chortle", "Cheering", "Chatter", "Crowd",
        "Hubbub, speech noise, speech babble", "Children playing",
    ]
    static let bassClasses = [
        "Bass guitar", "Bass drum", "Drum machine", "Hip hop music", "Electronic music", "House music", "Techno",
        "Dubstep", "Drum and bass", "Electronica", "Electronic dance music", "Dance music", "Reggae", "Funk",
        "Disco", "Trance music",
    ]
    static let steadyNoiseClasses = [
        "Wind", "Rustling leaves", "Wind noise (microphone)", "Water", "Rain", "Rain on surface", "Stream",
        "Waterfall", "Ocean", "Waves, surf", "Steam", "Vehicle", "Boat, Water vehicle", "Motorboat, speedboat",
        "Ship", "Motor vehicle (road)", "Car", "Car passing by", "Race car, auto racing", "Truck", "Bus",
        "Motorcycle", "Traffic noise, roadway noise", "Rail transport", "Train", "Railroad car, train wagon",
        "Subway, metro, underground", "Aircraft", "Aircraft engine", "Jet engine", "Propeller, airscrew",
        "Helicopter", "Fixed-wing aircraft, airplane", "Engine", "Light engine (high frequency)",
        "Dental drill, dentist's drill", "Lawn mower", "Chainsaw", "Medium engine (mid frequency)",
        "Heavy engine (low frequency)", "Engine knocking", "Idling", "Accelerating, revving, vroom",
        "Frying (food)", "Microwave oven", "Blender", "Water tap, faucet", "Sink (filling or washing)",
        "Bathtub (filling or washing)", "Hair dryer", "Vacuum cleaner", "Electric shaver, electric razor",
        "Mechanisms", "Sewing machine", "Mechanical fan", "Air conditioning", "Printer", "Jackhammer", "Sawing",
        "Sanding", "Power tool", "Drill", "Spray", "Pump (liquid)", "Boiling", "Whir", "Rumble", "Hum",
        "Outside, urban or manmade", "Noise", "Environmental noise", "Static", "Mains hum", "White noise",
        "Pink noise", "Vibration", "Throbbing",
    ]

    static let table: [String: AudioSetGroup] = {
        var table: [String: AudioSetGroup] = ["Silence": .silence]
        for name in voiceClasses { table[name] = .voices }
        for name in steadyNoiseClasses { table[name] = .steadyNoise }
        for name in bassClasses { table[name] = .bass }
        return table
    }()

    /// Music: "Music", the singing classes and every class of AudioSet's music subtree (instruments
    /// and genres, YAMNet outputs 132–276), bass ones apart.
    static func isMusic(index: Int, name: String) -> Bool {
        (132...276).contains(index)
            || [
                "Singing", "Choir", "Yodeling", "Chant", "Child singing",
                "Synthetic singing", "Rapping", "Humming", "A capella",
            ].contains(name)
    }
}

extension AudioSetModel {
    /// Each output's group: the table, then the music subtree.
    static func groups(of names: [String]) -> [AudioSetGroup?] {
        names.enumerated().map { index, name in
            AudioSetGroup(className: name) ?? (AudioSetGroup.isMusic(index: index, name: name) ? .music : nil)
        }
    }
}
