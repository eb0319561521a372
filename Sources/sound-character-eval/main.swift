import AudioMetering
import Foundation

// Meters each audio file given and prints one JSON line per file: its windows with their label,
// rule and features (what `POST /api/v2/meter` answers as `character`). `--rules` prints the
// thresholds in force instead. Used by scripts/sound-character/evaluate.py; build with
// `swift build -c release --product sound-character-eval`.

struct FileResult: Encodable {
    struct Window: Encodable {
        var offset: Int
        var seconds: Int
        var label: String
        var reason: String
        var features: [String: Double?]
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

let arguments = Array(CommandLine.arguments.dropFirst())
if arguments.isEmpty || arguments == ["--help"] {
    print("usage: sound-character-eval FILE...   (one JSON line per file)\n       sound-character-eval --rules")
    exit(arguments.isEmpty ? 1 : 0)
}
if arguments == ["--rules"] {
    printLine(SoundCharacterRules())
    exit(0)
}

for path in arguments {
    do {
        let audio = try Data(contentsOf: URL(fileURLWithPath: path), options: .mappedIfSafe)
        let metered = try AudioMeter.measure(audio, maxDuration: .seconds(24 * 3600))
        let windows = metered.character.windows.map { window in
            let f = window.features
            let features: [String: Double?] = [
                "laeq": f.laeqDBFS, "lcMinusLa": f.lcMinusLaDB, "lowFrequencyExcess": f.lowFrequencyExcessDB,
                "flatness": f.flatnessDB, "flux": f.fluxDB, "lowEnergyShare": f.lowEnergyShare,
                "modulationRatio": f.modulationRatioDB, "modulationDepth": f.modulationDepth,
            ]
            return FileResult.Window(
                offset: window.offsetSeconds, seconds: window.seconds, label: window.label.rawValue,
                reason: window.reason, features: features)
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
