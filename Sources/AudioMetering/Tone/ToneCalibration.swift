import Foundation

/// What a calibrator tone recording gives: the tone, its level and the offset that makes the
/// phone read the calibrator's level.
public struct ToneCalibrationResult: Sendable, Equatable {
    /// The tone's frequency, interpolated between FFT bins.
    public var frequencyHz: Double
    /// The tone's level: the mean square in its peak (channels pooled as by ``AudioMeter``), in
    /// dBFS, so a full-scale sine reads −3.01 like the meter's RMS.
    public var levelDBFS: Double
    /// The calibrator's level, dB SPL, as given.
    public var referenceDB: Double
    /// `referenceDB − levelDBFS`: what to add to this phone's dBFS to get dB SPL.
    public var offsetDB: Double
    /// The tone's power over the power of everything else from 20 Hz to Nyquist, dB.
    public var snrDB: Double
    /// Length of the decoded audio.
    public var seconds: Double
    /// The tone's level in each whole second (the analysis frames), dBFS.
    public var secondLevelsDBFS: [Double]

    public init(
        frequencyHz: Double, levelDBFS: Double, referenceDB: Double, offsetDB: Double, snrDB: Double,
        seconds: Double, secondLevelsDBFS: [Double]
    ) {
        self.frequencyHz = frequencyHz
        self.levelDBFS = levelDBFS
        self.referenceDB = referenceDB
        self.offsetDB = offsetDB
        self.snrDB = snrDB
        self.seconds = seconds
        self.secondLevelsDBFS = secondLevelsDBFS
    }
}

/// Reference calibration with a sound calibrator (issue 13): a calibrator held over the phone's
/// microphone plays one tone at a known level (e.g. 94 dB SPL at 1 kHz); the phone's recording of
/// it gives the phone's level of that tone, and their difference is the phone's offset.
///
/// Method (docs/ARCHITECTURE.md, "Tone calibration"): the audio is cut into frames of one second
/// (the sample rate rounded down to even, for KissFFT's real transform); each frame gets a
/// periodic Hamming window and a KissFFT power spectrum, scaled so the bins sum to mean square.
/// Pass one averages the spectra; the strongest bin from 20 Hz up is the tone, its frequency
/// interpolated on the log powers of its neighbours, its level the power within ±3 bins. Pass two
/// (a second decoding, so that no decoded audio but one frame is ever held) measures that band in
/// every frame for the per-second levels. A recording is refused unless it is a clean, steady tone: see the
/// thresholds below and ``NoToneReason``.
public enum ToneCalibration {
    /// Two seconds at the least, so that the level is seen steady over more than one second.
    public static let minimumSeconds = 2.0
    /// Below −90 dBFS a recording is silence: a calibrator at 94 dB SPL reads far above it on any
    /// phone, and 16-bit dither sits near −101 dBFS.
    public static let silenceFloorDBFS = -90.0
    /// The tone must hold 100 times the power of everything else (20 dB): the rest then adds at
    /// most 0.04 dB to a broadband level, and a calibrator's own distortion (≤ 1–3 %, −30 to
    /// −40 dB) passes.
    public static let minimumSNRDB = 20.0
    /// Each second's tone level within ±0.5 dB of the median: IEC 60942 lets a calibrator's level
    /// fluctuate by 0.1 dB (class 1) or 0.2 dB (class 2), so more means the calibrator moved or slipped.
    public static let stabilityToleranceDB = 0.5
    /// A further peak holding at least 1 % (−20 dB) of the power makes a second tone.
    public static let componentShareDB = -20.0
    /// The bottom of the search: below this is DC offset and rumble, no calibrator's tone.
    public static let lowestHz = 20.0
    /// Below 1 kHz sampling a 250 Hz calibrator is too near Nyquist to judge.
    public static let minimumSampleRate = 1000
    /// Calibrator levels accepted by the API and the CLI, dB SPL.
    public static let referenceRangeDB: ClosedRange<Double> = 40...140
    /// Half-width of a peak's band, in bins.
    static let peakHalfWidthBins = 3
    /// At most this many tones are named when refusing several.
    static let maxReportedTones = 8
    /// Frames per `sf_readf_float` call, as ``AudioMeter``.
    static let chunkFrames = 4096

    /// Decodes `audio` with libsndfile (any format it reads from memory, any rate and channel
    /// count; channels pooled as ``AudioMeter`` does) and measures the calibrator tone in it.
    /// The audio is decoded twice, one frame at a time, and never written anywhere.
    /// - Throws: `.audio` for bytes libsndfile cannot read or audio longer than `maxDuration`
    ///   (the ``AudioMeter`` errors), `.noTone` when there is no clean, steady tone.
    public static func measure(
        _ audio: Data, referenceDB: Double, maxDuration: Duration = .seconds(600)
    ) throws(ToneCalibrationError) -> ToneCalibrationResult {
        let (sampleRate, channelCount, headerFrames): (Int, Int, Int?)
        do {
            let file = try MemorySoundFile(reading: audio)
            (sampleRate, channelCount, headerFrames) = (
                Int(file.info.samplerate), Int(file.info.channels), file.headerFrameCount
            )
        } catch {
            throw .audio(error)
        }
        guard sampleRate > 0, channelCount > 0 else {
            throw .audio(.unreadable(libsndfileMessage: "header gives \(sampleRate) Hz, \(channelCount) channels"))
        }
        let limitSeconds = maxDuration / .seconds(1)
        if let headerFrames, Double(headerFrames) / Double(sampleRate) > limitSeconds {
            throw .audio(
                .tooLong(durationSeconds: Double(headerFrames) / Double(sampleRate), limitSeconds: limitSeconds))
        }
        let maxFrames = Int((limitSeconds * Double(sampleRate)).rounded(.down))
        return try analyze(sampleRate: sampleRate, channelCount: channelCount, referenceDB: referenceDB) {
            consume throws(AudioMeteringError) in
            let file = try MemorySoundFile(reading: audio)
            let buffer = UnsafeMutableBufferPointer<Float>.allocate(capacity: chunkFrames * channelCount)
            defer { buffer.deallocate() }
            guard let base = buffer.baseAddress else { return }
            var decoded = 0
            while true {
                let read = try file.readFrames(into: base, frameCount: chunkFrames)
                guard read > 0 else { break }
                decoded += read
                guard decoded <= maxFrames else {
                    throw .tooLong(durationSeconds: Double(decoded) / Double(sampleRate), limitSeconds: limitSeconds)
                }
                consume(UnsafeBufferPointer(buffer), read)
            }
        }
    }

    /// Measures the calibrator tone in mono samples (full scale ±1), with the same method and
    /// thresholds as for a file.
    /// - Throws: `.noTone` when there is no clean, steady tone.
    public static func measure(
        samples: [Float], sampleRate: Int, referenceDB: Double
    ) throws(ToneCalibrationError) -> ToneCalibrationResult {
        try analyze(sampleRate: sampleRate, channelCount: 1, referenceDB: referenceDB) {
            consume throws(AudioMeteringError) in
            samples.withUnsafeBufferPointer { consume($0, $0.count) }
        }
    }

    /// Feeds one pass: calls its argument with interleaved chunks (samples, frame count) from
    /// the first frame to the last.
    typealias Pass = (_ consume: (UnsafeBufferPointer<Float>, Int) -> Void) throws(AudioMeteringError) -> Void

    static func analyze(
        sampleRate: Int, channelCount: Int, referenceDB: Double, pass: Pass
    ) throws(ToneCalibrationError) -> ToneCalibrationResult {
        guard sampleRate >= minimumSampleRate else { throw .noTone(.sampleRateTooLow(sampleRate: sampleRate)) }
        let frameLength = sampleRate - sampleRate % 2
        guard var spectrum = FramePowerSpectrum(frameLength: frameLength) else {
            throw .noTone(.sampleRateTooLow(sampleRate: sampleRate))
        }
        let framing = (channelCount: channelCount, frameLength: frameLength)
        let (average, seconds) = try averagedSpectrum(
            &spectrum, framing: framing, sampleRate: sampleRate, pass: pass)
        let binHz = Double(sampleRate) / Double(frameLength)
        guard let tones = ToneSpectrum(power: average, binHz: binHz, lowestHz: lowestHz) else {
            throw .noTone(.sampleRateTooLow(sampleRate: sampleRate))
        }
        let (tone, snrDB) = try singleTone(in: tones)
        let frequencyHz = tones.interpolatedHz(of: tone.bin)
        let secondLevels = try bandLevels(
            tones.band(around: tone.bin), spectrum: &spectrum, framing: framing, pass: pass)
        let median = median(of: secondLevels)
        let spread = secondLevels.map { abs($0 - median) }.max() ?? 0
        guard spread <= stabilityToleranceDB else {
            throw .noTone(.unstableLevel(frequencyHz: frequencyHz, secondLevelsDBFS: secondLevels, spreadDB: spread))
        }

        let levelDBFS = Decibels.fromMeanSquare(tone.power)
        return ToneCalibrationResult(
            frequencyHz: frequencyHz, levelDBFS: levelDBFS, referenceDB: referenceDB,
            offsetDB: referenceDB - levelDBFS, snrDB: snrDB, seconds: seconds, secondLevelsDBFS: secondLevels)
    }

    /// Pass one: the spectrum averaged over the whole frames, and the length in seconds.
    private static func averagedSpectrum(
        _ spectrum: inout FramePowerSpectrum, framing: (channelCount: Int, frameLength: Int), sampleRate: Int,
        pass: Pass
    ) throws(ToneCalibrationError) -> (average: [Double], seconds: Double) {
        var average = [Double](repeating: 0, count: spectrum.binCount)
        var splitter = FrameSplitter(channelCount: framing.channelCount, frameLength: framing.frameLength)
        do {
            try pass { chunk, count in
                splitter.append(chunk, count: count) { spectrum.add($0, to: &average) }
            }
        } catch {
            throw .audio(error)
        }
        let seconds = Double(splitter.frameCount) / Double(sampleRate)
        guard seconds >= minimumSeconds, splitter.wholeFrames >= 2 else { throw .noTone(.tooShort(seconds: seconds)) }
        let frames = Double(splitter.wholeFrames)
        return (average.map { $0 / frames }, seconds)
    }

    /// The tone: one peak, far above the rest; with its signal-to-noise ratio, dB.
    private static func singleTone(in tones: ToneSpectrum) throws(ToneCalibrationError) -> (
        tone: ToneSpectrum.Peak, snrDB: Double
    ) {
        let total = tones.total
        let audible = Decibels.fromMeanSquare(total)
        let peaks = tones.peaks(share: pow(10, componentShareDB / 10), limit: maxReportedTones)
        guard audible >= silenceFloorDBFS, let tone = peaks.first else { throw .noTone(.silence(levelDBFS: audible)) }
        if peaks.count >= 2 {
            throw .noTone(
                .severalTones(
                    frequenciesHz: peaks.map { tones.interpolatedHz(of: $0.bin) },
                    levelsDBFS: peaks.map { Decibels.fromMeanSquare($0.power) }))
        }
        // The rest counts as at least 10⁻¹⁵ of the total (≤ 150 dB): below that is rounding, not sound.
        let rest = max(total - tone.power, total * 1e-15)
        let snrDB = 10 * log10(tone.power / rest)
        guard snrDB >= minimumSNRDB else {
            throw .noTone(.noise(strongestHz: tones.interpolatedHz(of: tone.bin), snrDB: snrDB))
        }
        return (tone, snrDB)
    }

    /// Pass two: the level of the tone's band in every frame (second), dBFS.
    private static func bandLevels(
        _ band: ClosedRange<Int>, spectrum: inout FramePowerSpectrum, framing: (channelCount: Int, frameLength: Int),
        pass: Pass
    ) throws(ToneCalibrationError) -> [Double] {
        var secondLevels: [Double] = []
        var framePower = [Double](repeating: 0, count: spectrum.binCount)
        var splitter = FrameSplitter(channelCount: framing.channelCount, frameLength: framing.frameLength)
        do {
            try pass { chunk, count in
                splitter.append(chunk, count: count) { channels in
                    framePower.withUnsafeMutableBufferPointer { $0.update(repeating: 0) }
                    spectrum.add(channels, to: &framePower)
                    secondLevels.append(Decibels.fromMeanSquare(band.reduce(0) { $0 + framePower[$1] }))
                }
            }
        } catch {
            throw .audio(error)
        }
        return secondLevels
    }

    /// AudioMetering does not depend on LoudnessCore's `RobustStatistics`.
    private static func median(of values: [Double]) -> Double {
        let sorted = values.sorted()
        guard !sorted.isEmpty else { return 0 }
        let middle = sorted.count / 2
        return sorted.count.isMultiple(of: 2) ? (sorted[middle - 1] + sorted[middle]) / 2 : sorted[middle]
    }
}
