import LoudnessCore

/// What a phone's own sound classifier heard during a check-in (docs/ARCHITECTURE.md, "The
/// phone's own classes"), validated: which classifier, the vocabulary of its labels, and its
/// windows, each with its top labels and the class HearClear's table gives them.
public struct PhoneClasses: Sendable, Equatable {
    /// One classified stretch of the check-in.
    public struct Window: Sendable, Equatable {
        /// Its first second: whole seconds after the check-in's first sample.
        public var offsetSeconds: Int32
        /// Its length, whole seconds (at least 1).
        public var seconds: Int16
        /// Its top labels as sent (at most 5), best first as sent.
        public var labels: [String]
        /// Their confidences, per mille (0 … 1000), rounded from what was sent.
        public var confidencesPermille: [Int16]
        /// ``SoundLabelMapping/windowClass(_:vocabulary:)`` of the labels with the per-mille
        /// confidences (so the class follows from what is stored).
        public var soundClass: SoundClass

        public init(
            offsetSeconds: Int32, seconds: Int16, labels: [String], confidencesPermille: [Int16],
            soundClass: SoundClass
        ) {
            self.offsetSeconds = offsetSeconds
            self.seconds = seconds
            self.labels = labels
            self.confidencesPermille = confidencesPermille
            self.soundClass = soundClass
        }

        /// A window of `labels` with `confidencesPermille`, classed by the table.
        public init(
            offsetSeconds: Int32, seconds: Int16, labels: [String], confidencesPermille: [Int16],
            vocabulary: ClassVocabulary
        ) {
            let top = zip(labels, confidencesPermille).map { (label: $0, confidence: Double($1) / 1000) }
            self.init(
                offsetSeconds: offsetSeconds, seconds: seconds, labels: labels,
                confidencesPermille: confidencesPermille,
                soundClass: SoundLabelMapping.windowClass(top, vocabulary: vocabulary))
        }
    }

    /// The classifier's name and version as the phone gave them (`yamnet`, `1`).
    public var classifierName: String
    public var classifierVersion: String
    public var vocabulary: ClassVocabulary
    /// Ascending, not overlapping, within the check-in's seconds.
    public var windows: [Window]

    public init(classifierName: String, classifierVersion: String, vocabulary: ClassVocabulary, windows: [Window]) {
        self.classifierName = classifierName
        self.classifierVersion = classifierVersion
        self.vocabulary = vocabulary
        self.windows = windows
    }

    /// What pooling needs of them.
    public var pooling: PhoneClassWindows {
        PhoneClassWindows(
            offsetsSeconds: windows.map(\.offsetSeconds), seconds: windows.map(\.seconds),
            classes: windows.map(\.soundClass))!
    }
}
