import AudioClassification
import AudioMetering
import Foundation

// Meters each audio file given and prints one JSON line per file: its windows with their label,
// rule, features and (with the model) top AudioSet classes — what `POST /api/v2/meter` answers as
// `character`. `--model DIR` labels by the AudioSet model in DIR, `--no-model` (the default) by the
// spectra rules; `--rules` prints the thresholds in force instead. Used by
// scripts/sound-character/evaluate.py; build with `swift build -c release --product sound-character-eval`.

struct FileResult: Encodable {
    struct Window: Encodable {
        var offset: Int
        var seconds: Int
        var label: String
        var reason: String
        var features: [String: Double?]
        var classifier: String
        var top: [Top]
        /// The groups' scores the model's rules compared (absent with the spectra rules).
        var groups: [String: Double]?
    }

    struct Top: Encodable {
        var label: String
        var score: Double
    }

    var file: String
    var sampleRate: Int?
    var channels: Int?
    var seconds: Double?
    var medianLcMinusLa: Double?
    var windows: [Window]
    var error: String?
}

let encoder = JSONEncoder()
encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]

func printLine(_ value: some Encodable) {
    let data = (try? encoder.encode(value)) ?? Data("{}".utf8)
    print(String(decoding: data, as: UTF8.self))
}

var arguments = Array(CommandLine.arguments.dropFirst())
if arguments.isEmpty || arguments == ["--help"] {
    print(
        """
        usage: sound-character-eval [--model DIR | --no-model] FILE...   (one JSON line per file)
               sound-character-eval [--model DIR] --rules                (the thresholds in force)
        --model DIR   label windows by the AudioSet model in DIR (model.onnx, model.data, yamnet_class_map.csv)
        --no-model    label windows by the spectra rules (the default)
        """)
    exit(arguments.isEmpty ? 1 : 0)
}
var model: AudioSetModel?
if arguments.first == "--no-model" {
    arguments.removeFirst()
} else if arguments.first == "--model", arguments.count >= 2 {
    do {
        model = try AudioSetModel(folder: URL(fileURLWithPath: arguments[1]))
    } catch {
        FileHandle.standardError.write(Data("sound-character-eval: \(error)\n".utf8))
        exit(1)
    }
    arguments.removeFirst(2)
}
if arguments == ["--rules"] {
    if model != nil { printLine(LearnedCharacterRules()) } else { printLine(SoundCharacterRules()) }
    exit(0)
}

for path in arguments {
    do {
        let audio = try Data(contentsOf: URL(fileURLWithPath: path), options: .mappedIfSafe)
        let metered = try AudioMeter.measure(audio, maxDuration: .seconds(24 * 3600), model: model)
        let windows = metered.character.windows.map { window in
            let f = window.features
            let features: [String: Double?] = [
                "laeq": f.laeqDBFS, "lcMinusLa": f.lcMinusLaDB, "lowFrequencyExcess": f.lowFrequencyExcessDB,
                "flatness": f.flatnessDB, "flux": f.fluxDB, "lowEnergyShare": f.lowEnergyShare,
                "modulationRatio": f.modulationRatioDB, "modulationDepth": f.modulationDepth,
            ]
            return FileResult.Window(
                offset: window.offsetSeconds, seconds: window.seconds, label: window.label.rawValue,
                reason: window.reason, features: features, classifier: metered.character.classifier,
                top: window.topClasses.map { FileResult.Top(label: $0.name, score: $0.score) },
                groups: window.groupScores.map {
                    [
                        "voices": Double($0.voices), "music": Double($0.music), "bass": Double($0.bass),
                        "steadyNoise": Double($0.steadyNoise), "silence": Double($0.silence),
                    ]
                })
        }
        printLine(
            FileResult(
                file: path, sampleRate: metered.format.sampleRate, channels: metered.format.channelCount,
                seconds: metered.format.durationSeconds, medianLcMinusLa: metered.character.medianLcMinusLaDB,
                windows: windows, error: nil))
    } catch {
        printLine(FileResult(file: path, windows: [], error: "\(error)"))
    }
}
