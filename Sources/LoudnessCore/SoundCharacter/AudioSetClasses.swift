/// The vocabulary a phone's classifier names its classes in (docs/ARCHITECTURE.md, "The phone's
/// own classes"): AudioSet's display names (YAMNet's class map, and any model trained on
/// AudioSet) or the identifiers of Apple's SoundAnalysis built-in classifier.
public enum ClassVocabulary: String, Sendable, CaseIterable, Codable {
    case audioSet = "audioset"
    case soundAnalysis = "soundanalysis"
}

/// The one table from a classifier's labels to HearClear's ``SoundClass`` (docs/ARCHITECTURE.md,
/// "The phone's own classes"), and the rule that labels a window from its top labels. Used for
/// the classes a phone sends with a check-in, and meant for any server-side classifier that
/// names AudioSet classes.
///
/// A label maps to at most one class; `bass_heavy_music` is given to the labels of music whose
/// bass carries it (a bass drum, dubstep, techno …): they count as music, and make a musical
/// window bass-heavy (``windowClass(_:)``). Labels not in the table are ignored, never an error.
/// `uncertain` is never a label's class: it is what a window gets when no class is sure enough.
public enum SoundLabelMapping {
    /// A window's winning class needs at least this summed confidence. *Why:* YAMNet's and
    /// SoundAnalysis's scores are per class and independent (sigmoid), so one label at 0.3 is
    /// already a class the model hears; under it, the top labels are mostly guesses.
    public static let minimumConfidence = 0.3
    /// A musical window is bass-heavy when its bass labels (those mapped to `bass_heavy_music`)
    /// sum at least this. *Why:* lower than ``minimumConfidence``, since the bass labels come
    /// beside a general "Music" label that already carries the window; a bass drum at 0.2 under
    /// music at 0.8 is the kick a venue's loudness complaints are about.
    public static let bassMinimumConfidence = 0.2

    /// AudioSet display names (as in YAMNet's `yamnet_class_map.csv`) → class. Compared exactly
    /// as written, case included.
    public static let audioSet: [String: SoundClass] = {
        var table: [String: SoundClass] = [:]
        for name in [
            "Speech", "Male speech, man speaking", "Female speech, woman speaking", "Child speech, kid speaking",
            "Conversation", "Narration, monologue", "Babbling", "Chatter", "Hubbub, speech noise, speech babble",
            "Crowd", "Cheering", "Applause", "Laughter", "Giggle", "Chuckle, chortle", "Belly laugh", "Shout",
            "Yell", "Whispering", "Children shouting", "Children playing", "Clapping", "Speech synthesizer",
            "Bellow", "Whoop", "Screaming", "Snicker",
        ] { table[name] = .babble }
        for name in [
            "Music", "Musical instrument", "Pop music", "Rock music", "Jazz", "Classical music",
            "Singing", "Choir", "Song", "Background music", "Soul music", "Rhythm and blues", "Country",
            "Folk music", "Blues", "Disco", "Funk", "Vocal music", "A capella", "Guitar", "Piano", "Keyboard (musical)",
            "Drum", "Drum kit", "Snare drum", "Percussion", "Orchestra", "Violin, fiddle", "Saxophone", "Trumpet",
            "Electronic music", "Ambient music", "Music of Latin America", "Salsa music", "Ska",
            "Independent music", "Heavy metal", "Punk rock", "Grunge", "Progressive rock", "Rock and roll",
            "Psychedelic rock", "Lounge music", "Jingle (music)", "Theme music", "Dance music", "Yodeling", "Chant",
            "Child singing", "Synthetic singing", "Humming",
        ] { table[name] = .music }
        for name in [
            "Bass drum", "Bass guitar", "Drum and bass", "Dubstep", "Electronic dance music", "Techno",
            "House music", "Trance music", "Hip hop music", "Trap music", "Drum machine", "Reggae", "Grime music",
            "Electronica", "Rapping",
        ] { table[name] = .bassHeavyMusic }
        for name in [
            "Wind", "Wind noise (microphone)", "Rustling leaves", "Rain", "Raindrop", "Rain on surface",
            "Engine", "Idling", "Vehicle", "Car", "Traffic noise, roadway noise", "Motor vehicle (road)", "Bus",
            "Truck", "Train", "Rail transport", "Subway, metro, underground", "Aircraft", "Air conditioning",
            "Mechanical fan", "White noise", "Pink noise", "Noise", "Environmental noise", "Static", "Hum",
            "Mains hum", "Buzz", "Whoosh, swoosh, swish", "Rumble", "Water", "Stream", "Waterfall", "Ocean",
            "Waves, surf",
            "Steam", "Hiss", "Vacuum cleaner", "Hair dryer", "Blender", "Boat, Water vehicle",
            "Motorboat, speedboat", "Ship", "Car passing by", "Race car, auto racing", "Motorcycle",
            "Railroad car, train wagon", "Aircraft engine", "Jet engine", "Propeller, airscrew", "Helicopter",
            "Fixed-wing aircraft, airplane", "Light engine (high frequency)", "Dental drill, dentist's drill",
            "Lawn mower", "Chainsaw", "Medium engine (mid frequency)", "Heavy engine (low frequency)",
            "Engine knocking", "Accelerating, revving, vroom", "Frying (food)", "Microwave oven", "Water tap, faucet",
            "Sink (filling or washing)", "Bathtub (filling or washing)", "Electric shaver, electric razor",
            "Mechanisms", "Sewing machine", "Printer", "Jackhammer", "Sawing", "Sanding", "Power tool", "Drill",
            "Spray", "Pump (liquid)", "Boiling", "Whir", "Outside, urban or manmade", "Vibration", "Throbbing",
        ] { table[name] = .steadyNoise }
        table["Silence"] = .quiet
        return table
    }()

    /// Apple SoundAnalysis built-in classifier identifiers (`SNClassifierIdentifier.version1`) →
    /// class. Compared exactly as written.
    public static let soundAnalysis: [String: SoundClass] = {
        var table: [String: SoundClass] = [:]
        for name in [
            "speech", "conversation", "babble", "crowd", "chatter", "cheering", "applause", "laughter", "giggling",
            "shout", "yell", "whispering", "children_shouting", "clapping", "narration", "male_speech",
            "female_speech", "child_speech",
        ] { table[name] = .babble }
        for name in [
            "music", "singing", "choir", "pop_music", "rock_music", "jazz", "classical_music", "guitar",
            "acoustic_guitar", "electric_guitar", "piano", "keyboard_musical", "drum", "drum_kit", "snare_drum",
            "percussion", "orchestra", "violin_fiddle", "saxophone", "trumpet", "disco", "funk", "country",
            "folk_music", "blues", "soul_music", "rhythm_and_blues", "electronic_music", "ambient_music",
        ] { table[name] = .music }
        for name in [
            "bass_drum", "bass_guitar", "drum_and_bass", "dubstep", "electronic_dance_music", "techno",
            "house_music", "trance_music", "hip_hop_music", "trap_music", "drum_machine", "reggae", "rapping",
        ] { table[name] = .bassHeavyMusic }
        for name in [
            "wind", "wind_noise_microphone", "rain", "raindrop", "engine", "engine_idling", "vehicle", "car",
            "traffic_noise", "road_traffic", "bus", "truck", "train", "subway_metro", "aircraft",
            "air_conditioner", "fan", "mechanical_fan", "white_noise", "pink_noise", "noise", "hum", "buzz",
            "rumble", "water", "stream_burbling", "waterfall", "ocean", "sea_waves", "hiss", "vacuum_cleaner",
            "hair_dryer", "blender",
        ] { table[name] = .steadyNoise }
        table["silence"] = .quiet
        return table
    }()

    /// The class of an AudioSet display name; nil when the table does not know it.
    public static func soundClass(forAudioSet name: String) -> SoundClass? { audioSet[name] }

    /// The class of a SoundAnalysis identifier; nil when the table does not know it.
    public static func soundClass(forSoundAnalysis identifier: String) -> SoundClass? { soundAnalysis[identifier] }

    /// The class of `label` in `vocabulary`; nil when unknown.
    public static func soundClass(for label: String, in vocabulary: ClassVocabulary) -> SoundClass? {
        switch vocabulary {
        case .audioSet: audioSet[label]
        case .soundAnalysis: soundAnalysis[label]
        }
    }

    /// The class of one window from its top labels (``ClassVocabulary`` names) and their
    /// confidences (0 … 1):
    ///
    /// 1. each label takes its class from the table; unknown labels are left out;
    /// 2. the confidences are summed per class, music and bass-heavy music together as music;
    /// 3. the class with the highest sum wins if it reaches ``minimumConfidence``; a tie at the
    ///    top, or no class reaching it, is `uncertain`;
    /// 4. a winning music is `bass_heavy_music` when its bass labels sum at least
    ///    ``bassMinimumConfidence``.
    public static func windowClass(
        _ top: [(label: String, confidence: Double)], vocabulary: ClassVocabulary
    ) -> SoundClass {
        var sums = [Double](repeating: 0, count: SoundClass.allCases.count)
        var bass = 0.0
        for (label, confidence) in top {
            guard let soundClass = soundClass(for: label, in: vocabulary) else { continue }
            if soundClass == .bassHeavyMusic {
                bass += confidence
                sums[SoundClass.music.index] += confidence
            } else {
                sums[soundClass.index] += confidence
            }
        }
        let best = sums.max() ?? 0
        guard best >= minimumConfidence, sums.filter({ $0 == best }).count == 1,
            let winner = SoundClass.allCases.first(where: { sums[$0.index] == best })
        else { return .uncertain }
        return winner == .music && bass >= bassMinimumConfidence ? .bassHeavyMusic : winner
    }
}
