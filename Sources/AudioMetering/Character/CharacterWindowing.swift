import AudioClassification

/// Cuts the recording's seconds into the character's windows and measures each window's frame
/// features as soon as the window is settled, so that no more than 15 seconds of frame envelopes
/// are ever held.
///
/// Windows are 10 s from the start; a rest under 5 s joins the last window (so windows last 5 to
/// 14 s, and a recording under 10 s is one window). A window is settled once the seconds after it
/// reach 5, or at the end.
struct CharacterWindowing {
    /// The AudioSet model's scores are pooled over the same windows as it decodes.
    static let windowSeconds = RecordingClassifier.windowSeconds
    static let shortestRestSeconds = 5

    /// The frame features of one settled window.
    struct Window: Equatable {
        var firstSecond: Int
        var seconds: Int
        /// Mean spectral flux between consecutive frames, dB (nil without frames).
        var fluxDB: Double?
        /// Mean spectral flatness of the frames with sound, dB.
        var flatnessDB: Double?
        /// Share of frames under half their second's mean speech-band power.
        var lowEnergyShare: Double?
        var modulation: EnvelopeModulation.Result?
    }

    let framesPerSecond: Double
    private var open: [SecondFrames] = []
    private var openStart = 0
    private(set) var windows: [Window] = []

    init(framesPerSecond: Double) {
        self.framesPerSecond = framesPerSecond
    }

    mutating func add(_ second: SecondFrames) {
        open.append(second)
        if open.count >= Self.windowSeconds + Self.shortestRestSeconds { settle(Self.windowSeconds) }
    }

    /// Settles what is left of the first `secondCount` seconds of the recording (the seconds the
    /// meter reports; frames centred after them are dropped with them).
    mutating func finish(secondCount: Int) {
        let keep = max(0, min(open.count, secondCount - openStart))
        open.removeLast(open.count - keep)
        // A second no frame was centred in counts as an empty one.
        while openStart + open.count < secondCount { open.append(SecondFrames()) }
        if open.count > Self.windowSeconds, open.count - Self.windowSeconds >= Self.shortestRestSeconds {
            settle(Self.windowSeconds)
        }
        if !open.isEmpty { settle(open.count) }
    }

    private mutating func settle(_ count: Int) {
        let seconds = open.prefix(count)
        let frames = seconds.reduce(0) { $0 + $1.frames }
        let fluxCount = seconds.reduce(0) { $0 + $1.fluxCount }
        let flatnessCount = seconds.reduce(0) { $0 + $1.flatnessCount }
        let envelope = seconds.flatMap(\.envelope)
        windows.append(
            Window(
                firstSecond: openStart, seconds: count,
                fluxDB: fluxCount > 0 ? seconds.reduce(0) { $0 + $1.fluxSum } / Double(fluxCount) : nil,
                flatnessDB: flatnessCount > 0
                    ? seconds.reduce(0) { $0 + $1.flatnessSum } / Double(flatnessCount) : nil,
                lowEnergyShare: frames > 0
                    ? Double(seconds.reduce(0) { $0 + $1.lowEnergyFrames }) / Double(frames) : nil,
                modulation: EnvelopeModulation.measure(envelope, framesPerSecond: framesPerSecond)))
        open.removeFirst(count)
        openStart += count
    }
}
