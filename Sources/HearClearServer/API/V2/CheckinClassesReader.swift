import HearClearHTTP
import HearClearModel
import LoudnessCore

/// Reads the optional `classes` of a v2 check-in (docs/ARCHITECTURE.md, "The phone's own
/// classes") inside ``CheckinValidator``: all of `classifier` (`name`, `version`), `vocabulary`
/// and `windows` or none; windows ascending, not overlapping and within the check-in's seconds;
/// 1 to ``maxLabels`` labels a window, each once, with a confidence from 0 to 1. Labels the table
/// (`SoundLabelMapping`) does not know are kept and ignored by the class, never an error.
enum CheckinClassesReader {
    static let maxLabels = 5
    static let maxNameLength = 64
    static let maxVersionLength = 32
    static let maxLabelLength = 128
    /// A window's length, seconds.
    static let windowSeconds = 1...3600

    /// The classes at `/classes`; nil when absent or invalid (then with errors in `rules`).
    /// `sampleCount` bounds the number of windows (one a second at most); `spanSeconds` (the
    /// last sample's offset + 1) bounds where they may lie, nil when the samples were invalid.
    static func read(
        _ classes: CheckinRequest.Classes?, sampleCount: Int, spanSeconds: Int?, rules: inout FieldRules
    ) -> PhoneClasses? {
        guard let classes else { return nil }
        var name: String?
        var version: String?
        if let classifier = classes.classifier {
            name = rules.text(classifier.name, "/classes/classifier/name", required: true, maxLength: maxNameLength)
            version = rules.text(
                classifier.version, "/classes/classifier/version", required: true, maxLength: maxVersionLength)
        } else {
            rules.fail("/classes/classifier", "is required with classes")
        }
        var vocabulary: ClassVocabulary?
        if let raw = classes.vocabulary {
            vocabulary = ClassVocabulary(rawValue: raw)
            if vocabulary == nil { rules.fail("/classes/vocabulary", "must be \"audioset\" or \"soundanalysis\"") }
        } else {
            rules.fail("/classes/vocabulary", "is required with classes")
        }
        guard let sent = classes.windows else {
            rules.fail("/classes/windows", "is required with classes")
            return nil
        }
        guard !sent.isEmpty else {
            rules.fail("/classes/windows", "must hold at least one window, or classes be left out")
            return nil
        }
        guard sent.count <= sampleCount else {
            rules.fail(
                "/classes/windows", "must hold at most one window a second: \(sampleCount), not \(sent.count)")
            return nil
        }
        let windows = Self.windows(sent, spanSeconds: spanSeconds, vocabulary: vocabulary, rules: &rules)
        guard rules.errors.isEmpty, let name, let version, let vocabulary else { return nil }
        return PhoneClasses(classifierName: name, classifierVersion: version, vocabulary: vocabulary, windows: windows)
    }

    /// The windows at `/classes/windows`, those that are valid (the others with errors in `rules`):
    /// in order, not overlapping, within `spanSeconds`; none without a vocabulary.
    private static func windows(
        _ sent: [CheckinRequest.Classes.Window], spanSeconds: Int?, vocabulary: ClassVocabulary?,
        rules: inout FieldRules
    ) -> [PhoneClasses.Window] {
        var windows: [PhoneClasses.Window] = []
        windows.reserveCapacity(sent.count)
        var previousEnd = 0
        for (index, window) in sent.enumerated() where !rules.isFull {
            let pointer = "/classes/windows/\(index)"
            let offset = wholeSeconds(window.offset, pointer + "/offset", in: 0...86_400, rules: &rules)
            let seconds = wholeSeconds(window.seconds, pointer + "/seconds", in: windowSeconds, rules: &rules)
            if let offset, let seconds {
                if offset < previousEnd {
                    rules.fail(
                        pointer + "/offset",
                        "must not be before the end of the previous window (\(previousEnd)): windows are in order and do not overlap"
                    )
                } else if let spanSeconds, offset + seconds > spanSeconds {
                    rules.fail(
                        pointer + "/seconds",
                        "must end within the check-in's \(spanSeconds) seconds, not at \(offset + seconds)")
                }
                previousEnd = max(previousEnd, offset + seconds)
            }
            let top = labels(window.top, pointer + "/top", rules: &rules)
            if let offset, let seconds, let top, let vocabulary {
                windows.append(
                    PhoneClasses.Window(
                        offsetSeconds: Int32(offset), seconds: Int16(seconds), labels: top.map(\.label),
                        confidencesPermille: top.map(\.permille), vocabulary: vocabulary))
            }
        }
        return windows
    }

    /// A window's top labels, confidences in per mille.
    private static func labels(_ top: [CheckinRequest.Classes.Label]?, _ pointer: String, rules: inout FieldRules)
        -> [(label: String, permille: Int16)]?
    {
        guard let top else {
            rules.fail(pointer, "is required")
            return nil
        }
        guard (1...maxLabels).contains(top.count) else {
            rules.fail(pointer, "must hold from 1 to \(maxLabels) labels, not \(top.count)")
            return nil
        }
        var result: [(label: String, permille: Int16)] = []
        var seen: Set<String> = []
        var valid = true
        for (index, entry) in top.enumerated() {
            let label = rules.text(entry.label, "\(pointer)/\(index)/label", required: true, maxLength: maxLabelLength)
            let confidence = rules.number(entry.confidence, "\(pointer)/\(index)/confidence", required: true, in: 0...1)
            if let label, !seen.insert(label).inserted {
                rules.fail("\(pointer)/\(index)/label", "must not repeat a label of the same window")
                valid = false
            }
            guard let label, let confidence else {
                valid = false
                continue
            }
            result.append((label, Int16((confidence * 1000).rounded())))
        }
        return valid ? result : nil
    }

    /// A whole number of seconds within `range`.
    private static func wholeSeconds(
        _ value: Double?, _ pointer: String, in range: ClosedRange<Int>, rules: inout FieldRules
    ) -> Int? {
        guard let value else {
            rules.fail(pointer, "is required")
            return nil
        }
        guard value.isFinite, value == value.rounded(), Double(range.lowerBound) <= value,
            value <= Double(range.upperBound)
        else {
            rules.fail(pointer, "must be a whole number of seconds from \(range.lowerBound) to \(range.upperBound)")
            return nil
        }
        return Int(value)
    }
}
