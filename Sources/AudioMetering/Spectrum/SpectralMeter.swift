import Foundation

/// Third-octave band levels per second, and the short frames the sound's character is read from.
///
/// Two FFT analyses (KissFFT, through ``RealFFT``), because no one frame length suits both ends
/// of 50 Hz … 10 kHz inside a second:
///
/// * **Short frames** for the bands from 500 Hz up and for the character's features: about 40 ms
///   (the smallest length ≥ 0.04·fs with no prime factor above 5: 1920 at 48 kHz, bins of 25 Hz),
///   a sine window, a hop of half a frame (about 50 frames a second). The 500 Hz band is 115 Hz
///   (4.6 bins) wide, so a tone at its centre keeps its main lobe (±1.5 bins) inside it.
/// * **Long frames** for 50 … 400 Hz: the audio decimated to 4 … 8 kHz (``Decimator``), frames of
///   about 0.5 s (bins of about 2 Hz; the 50 Hz band is 11.5 Hz wide), a Hann window, a hop of a
///   quarter frame, the decimator's droop undone per bin.
///
/// Each frame's power spectrum (channels averaged, bins adding up to mean square) is summed into
/// bands bin by bin, a bin straddling an edge shared in proportion (``BandBinMap``). A second's
/// band power is the mean over the frames whose centre lies in it (the frames start half a hop in,
/// so that no centre falls on a second's edge); both windows weigh every sample alike at their
/// hop, so a steady sound reads its true band power, while a sound's level is smeared over ±20 ms
/// (short frames) and ±250 ms (long frames) around the second's edges: a tone starting on a
/// second's edge shows in the second before 27 dB (short) or 16 dB (long) below its level.
/// These are FFT approximations of third-octave bands, **not IEC 61260 class filters**: the skirts
/// are the window's sidelobes, a tone at a band edge splits between two bands, and bands whose
/// upper edge lies above Nyquist are not reported.
final class SpectralMeter {
    /// Band indices (of ``ThirdOctaveBands``) from the long frames; the rest come from the short.
    static let longBands = 0..<10
    static let shortBands = 10..<ThirdOctaveBands.count
    /// Short frames last about this long.
    static let shortFrameSeconds = 0.04
    /// Long frames last about this long.
    static let longFrameSeconds = 0.5
    /// The decimated rate for the long frames is at least this (factor ⌊fs / 4000⌋).
    static let decimatedMinimumRate = 4000

    let sampleRate: Int
    let channelCount: Int

    private let shortFrames: OverlappingFrames
    private let shortSpectrum: PooledPowerSpectrum
    private let shortMap: BandBinMap
    private let decimator: Decimator
    private var decimated: UnsafeMutablePointer<Float>
    private var decimatedCapacity: Int
    private let longFrames: OverlappingFrames
    private let longSpectrum: PooledPowerSpectrum
    private let longMap: BandBinMap
    private(set) var features: FrameFeatureExtractor
    private var shortBandPower: [Double]
    private var longBandPower: [Double]

    /// Per second: band power sums and frame counts, by path.
    private(set) var seconds: [SecondBands] = []

    struct SecondBands {
        var shortSum = [Double](repeating: 0, count: SpectralMeter.shortBands.count)
        var shortFrames = 0
        var longSum = [Double](repeating: 0, count: SpectralMeter.longBands.count)
        var longFrames = 0
    }

    init(sampleRate: Int, channelCount: Int) {
        self.sampleRate = sampleRate
        self.channelCount = channelCount
        let rate = Double(sampleRate)
        let nyquist = rate / 2

        let shortLength = FFTLength.nice(atLeast: rate * Self.shortFrameSeconds, multipleOf: 2)
        shortFrames = OverlappingFrames(
            channelCount: channelCount, length: shortLength, hop: shortLength / 2, offset: shortLength / 4,
            window: .sine)
        shortSpectrum = PooledPowerSpectrum(length: shortLength, window: .sine)!
        let shortBinHz = rate / Double(shortLength)
        shortMap = BandBinMap(
            bands: Self.shortBands, binHz: shortBinHz, binCount: shortSpectrum.binCount, nyquistHz: nyquist)

        let factor = max(1, sampleRate / Self.decimatedMinimumRate)
        let decimator = Decimator(factor: factor, channelCount: channelCount, sampleRate: rate)
        self.decimator = decimator
        decimatedCapacity = AudioMeter.chunkFrames / factor + 1
        decimated = .allocate(capacity: decimatedCapacity * channelCount)
        let decimatedRate = rate / Double(factor)
        let longLength = FFTLength.nice(atLeast: decimatedRate * Self.longFrameSeconds, multipleOf: 4)
        longFrames = OverlappingFrames(
            channelCount: channelCount, length: longLength, hop: longLength / 4, offset: longLength / 8, window: .hann)
        longSpectrum = PooledPowerSpectrum(length: longLength, window: .hann)!
        let longBinHz = decimatedRate / Double(longLength)
        let unscaled = BandBinMap(
            bands: Self.longBands, binHz: longBinHz, binCount: longSpectrum.binCount,
            nyquistHz: min(nyquist, decimatedRate / 2))
        // Undo the decimator's droop in the weights: each bin's power over |H(f)|².
        longMap = unscaled.compensated { bin in 1 / max(1e-6, decimator.gain(atHz: Double(bin) * longBinHz)) }

        features = FrameFeatureExtractor(
            binHz: shortBinHz, binCount: shortSpectrum.binCount, nyquistHz: nyquist,
            framesPerSecond: rate / Double(shortLength / 2))
        shortBandPower = [Double](repeating: 0, count: Self.shortBands.count)
        longBandPower = [Double](repeating: 0, count: Self.longBands.count)
    }

    deinit { decimated.deallocate() }

    /// Analyses `frameCount` interleaved frames.
    func consume(_ interleaved: UnsafeBufferPointer<Float>, frameCount: Int) {
        // Short frames: copy runs up to the next complete frame.
        var done = 0
        while done < frameCount {
            let run = min(frameCount - done, shortFrames.samplesUntilFrame)
            let slice = UnsafeBufferPointer(rebasing: interleaved[(done * channelCount)...])
            if shortFrames.append(interleaved: slice, count: run) { shortFrameComplete() }
            done += run
        }
        // Long frames: decimate, then frame.
        if decimatedCapacity < frameCount / decimator.factor + 1 {
            decimated.deallocate()
            decimatedCapacity = frameCount / decimator.factor + 1
            decimated = .allocate(capacity: decimatedCapacity * channelCount)
        }
        let outputs = decimator.process(interleaved, frameCount: frameCount, into: decimated)
        let decimatedFrames = UnsafeBufferPointer(start: decimated, count: outputs * channelCount)
        done = 0
        while done < outputs {
            let run = min(outputs - done, longFrames.samplesUntilFrame)
            let slice = UnsafeBufferPointer(rebasing: decimatedFrames[(done * channelCount)...])
            if longFrames.append(interleaved: slice, count: run) { longFrameComplete() }
            done += run
        }
    }

    private func shortFrameComplete() {
        shortSpectrum.analyse(shortFrames)
        let start = shortFrames.frameStart
        shortFrames.advance()
        let centre = Double(start) + Double(shortFrames.length) / 2
        let second = Int(centre / Double(sampleRate))
        for i in shortBandPower.indices { shortBandPower[i] = 0 }
        shortMap.accumulate(UnsafeBufferPointer(shortSpectrum.power), into: &shortBandPower)
        grow(to: second)
        for i in shortBandPower.indices { seconds[second].shortSum[i] += shortBandPower[i] }
        seconds[second].shortFrames += 1
        features.frame(
            second: second, power: UnsafeBufferPointer(shortSpectrum.power), shortBandPower: shortBandPower)
    }

    private func longFrameComplete() {
        longSpectrum.analyse(longFrames)
        let start = longFrames.frameStart
        longFrames.advance()
        let centreDecimated = Double(start) + Double(longFrames.length) / 2
        let centre = centreDecimated * Double(decimator.factor) - decimator.delaySamples
        let second = max(0, Int(centre / Double(sampleRate)))
        for i in longBandPower.indices { longBandPower[i] = 0 }
        longMap.accumulate(UnsafeBufferPointer(longSpectrum.power), into: &longBandPower)
        grow(to: second)
        for i in longBandPower.indices { seconds[second].longSum[i] += longBandPower[i] }
        seconds[second].longFrames += 1
    }

    private func grow(to second: Int) {
        while seconds.count <= second { seconds.append(SecondBands()) }
    }

    /// Band mean squares of `second` (24, by ``ThirdOctaveBands`` index): nil for a band above
    /// Nyquist or a second no frame of its path was centred in.
    func bandPowers(second: Int) -> [Double?] {
        let data = second < seconds.count ? seconds[second] : SecondBands()
        return (0..<ThirdOctaveBands.count).map { band in
            if Self.longBands.contains(band) {
                guard longMap.holds(band), data.longFrames > 0 else { return nil }
                return data.longSum[band - Self.longBands.lowerBound] / Double(data.longFrames)
            }
            guard shortMap.holds(band), data.shortFrames > 0 else { return nil }
            return data.shortSum[band - Self.shortBands.lowerBound] / Double(data.shortFrames)
        }
    }

    /// Ends the analysis: the character's windows over the first `secondCount` seconds, with
    /// their frame features.
    func finish(secondCount: Int) -> [CharacterWindowing.Window] {
        features.finish(secondCount: secondCount)
    }
}
