import Foundation

/// What the short frames of one second give the character's features.
struct SecondFrames: Sendable {
    /// Per frame, the RMS amplitude in the speech bands (500 Hz … 4 kHz): the envelope whose
    /// modulation is measured.
    var envelope: [Float] = []
    /// Frames centred in the second.
    var frames = 0
    /// Frames whose speech-band power is under half the second's mean.
    var lowEnergyFrames = 0
    /// Sum and count of the spectral flux between each frame and the one before, dB.
    var fluxSum = 0.0
    var fluxCount = 0
    /// Sum and count of the frames' spectral flatness, dB.
    var flatnessSum = 0.0
    var flatnessCount = 0
}

/// Per short frame (see ``SpectralMeter``): the speech-band power, the spectral flux and the
/// spectral flatness, gathered per second into ``SecondFrames`` and handed on to
/// ``CharacterWindowing`` as each second closes.
struct FrameFeatureExtractor {
    /// The speech bands: 500 Hz … 4 kHz (indices 10 … 19 of ``ThirdOctaveBands``), where speech
    /// carries most of its energy and its syllables' rhythm.
    static let speechBands = 10...19
    /// Flatness is measured within the octaves 250–500, 500–1000, 1000–2000 and 2000–4000 Hz, each
    /// on its own (an octave's tilt hardly matters; a sloping spectrum across four would).
    static let flatnessOctavesHz: [(Double, Double)] = [(250, 500), (500, 1000), (1000, 2000), (2000, 4000)]
    /// Frames quieter than this (−100 dBFS in the speech bands) give no flatness: digital silence
    /// has none.
    static let flatnessFloor = 1e-10
    /// Band powers are floored here (−120 dBFS) before the flux takes their logarithm.
    static let fluxFloor = 1e-12

    let framesPerSecond: Double
    private let flatnessBins: [ClosedRange<Int>]
    private var previousLevels: [Double]?
    private var second = 0
    private var current = SecondFrames()
    private var energies: [Double] = []
    private(set) var windowing: CharacterWindowing

    init(binHz: Double, binCount: Int, nyquistHz: Double, framesPerSecond: Double) {
        self.framesPerSecond = framesPerSecond
        flatnessBins = Self.flatnessOctavesHz.compactMap { low, high in
            guard high <= nyquistHz else { return nil }
            let first = Int((low / binHz).rounded(.up))
            let last = min(binCount - 1, Int((high / binHz).rounded(.up)) - 1)
            return last - first + 1 >= 4 ? first...last : nil
        }
        windowing = CharacterWindowing(framesPerSecond: framesPerSecond)
    }

    /// One frame centred in `second` (never earlier than the last one's): its pooled power
    /// spectrum and the power of the short path's bands (from 500 Hz, ``SpectralMeter/shortBands``).
    mutating func frame(second frameSecond: Int, power: UnsafeBufferPointer<Double>, shortBandPower: [Double]) {
        while second < frameSecond { closeSecond() }
        let offset = SpectralMeter.shortBands.lowerBound
        var speech = 0.0
        var levels: [Double] = []
        levels.reserveCapacity(Self.speechBands.count)
        for band in Self.speechBands {
            let value = shortBandPower[band - offset]
            speech += value
            levels.append(10 * log10(max(value, Self.fluxFloor)))
        }
        current.envelope.append(Float(speech.squareRoot()))
        current.frames += 1
        energies.append(speech)
        if let previousLevels, previousLevels.count == levels.count {
            var squares = 0.0
            for (a, b) in zip(levels, previousLevels) { squares += (a - b) * (a - b) }
            current.fluxSum += (squares / Double(levels.count)).squareRoot()
            current.fluxCount += 1
        }
        previousLevels = levels
        if speech >= Self.flatnessFloor, let flatness = flatnessDB(power) {
            current.flatnessSum += flatness
            current.flatnessCount += 1
        }
    }

    /// Spectral flatness: within each octave, the geometric over the arithmetic mean of the bins'
    /// power, in dB, averaged over the octaves. Gaussian noise reads about −2.5 dB (the mean log of
    /// an exponential variable), a tone or a harmonic series far lower.
    private func flatnessDB(_ power: UnsafeBufferPointer<Double>) -> Double? {
        guard !flatnessBins.isEmpty else { return nil }
        var total = 0.0
        for bins in flatnessBins {
            var logSum = 0.0
            var sum = 0.0
            for k in bins {
                let value = max(power[k], 1e-20)
                logSum += log(value)
                sum += value
            }
            let count = Double(bins.count)
            total += logSum / count - log(sum / count)
        }
        return 10 / log(10) * total / Double(flatnessBins.count)
    }

    private mutating func closeSecond() {
        if !energies.isEmpty {
            let half = 0.5 * energies.reduce(0, +) / Double(energies.count)
            current.lowEnergyFrames = energies.count { $0 < half }
        }
        windowing.add(current)
        current = SecondFrames()
        energies.removeAll(keepingCapacity: true)
        second += 1
    }

    /// Closes the last second and settles the windows of the first `secondCount` seconds.
    mutating func finish(secondCount: Int) -> [CharacterWindowing.Window] {
        if current.frames > 0 { closeSecond() }
        windowing.finish(secondCount: secondCount)
        return windowing.windows
    }
}
