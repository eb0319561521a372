import Foundation

/// An AudioSet classifier of 0.96 s log-mel patches: YAMNet (MobileNet-v1, 521 classes) as
/// Qualcomm AI Hub's 8-bit ONNX export, read from a folder holding `model.onnx`, its
/// `model.data` and `yamnet_class_map.csv` (`make deps` puts them in `models/yamnet`).
///
/// Immutable and `Sendable`: load it once and share it; ``RecordingClassifier`` runs it over one
/// recording.
public final class AudioSetModel: Sendable {
    /// Where `make deps` puts the model, relative to the repository (the server's default).
    public static let defaultFolder = "models/yamnet"
    /// Named in every window classified with it (and in `POST /api/v2/meter`'s answer).
    public static let name = "yamnet-w8a8"

    public let network: QuantizedNetwork
    /// AudioSet display names, in the model's output order.
    public let classNames: [String]
    /// The HearClear group of each output (nil: a class that says nothing about the room).
    public let groups: [AudioSetGroup?]

    /// - Throws: ``ONNXModelError`` when a file is missing or the model is not a [1, 1, 96, 64] →
    ///   one-row-per-class network with as many classes as the class map.
    public init(folder: URL) throws(ONNXModelError) {
        let network = try QuantizedNetwork(contentsOf: folder.appendingPathComponent("model.onnx"))
        let mapPath = folder.appendingPathComponent("yamnet_class_map.csv")
        let text: String
        do {
            text = try String(contentsOf: mapPath, encoding: .utf8)
        } catch {
            throw .unreadable(path: mapPath.path, reason: "\(error)")
        }
        let names = try Self.classNames(csv: text)
        guard network.inputShape == [1, LogMelFrontEnd.patchFrames, LogMelFrontEnd.bands] else {
            throw .unexpectedShape("input \(network.inputShape), not [1, 96, 64] log-mel patches")
        }
        guard network.outputCount == names.count else {
            throw .unexpectedShape("\(network.outputCount) outputs for \(names.count) class names")
        }
        guard names.count > 276, names[132] == "Music", names[276] == "Scary music" else {
            throw .unexpectedShape("a class map whose music classes are not YAMNet's 132–276")
        }
        self.network = network
        classNames = names
        groups = Self.groups(of: names)
    }

    /// Per-class probabilities (the logistic of each output) of one patch of
    /// `patchFrames` × `bands` log-mel values.
    public func scores(patch: [Float]) -> [Float] {
        network.run(patch).map { 1 / (1 + exp(-$0)) }
    }

    /// The display names of `index,mid,display_name` rows (quoted names may hold commas).
    static func classNames(csv: String) throws(ONNXModelError) -> [String] {
        var names: [String] = []
        for (number, line) in csv.split(whereSeparator: \.isNewline).enumerated() where number > 0 {
            var fields: [String] = []
            var field = ""
            var quoted = false
            for character in line {
                switch character {
                case "\"": quoted.toggle()
                case "," where !quoted:
                    fields.append(field)
                    field = ""
                default: field.append(character)
                }
            }
            fields.append(field)
            guard fields.count == 3, Int(fields[0]) == names.count else {
                throw .malformed("class map line \(number + 1): \(line)")
            }
            names.append(fields[2])
        }
        return names
    }
}
