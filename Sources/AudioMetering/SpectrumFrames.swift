import Foundation

/// Analysis windows whose squares add up to a constant when frames overlap by their hop, so that
/// averaging the frames' power spectra weighs every sample of a second the same.
enum AnalysisWindow {
    /// sin(π(n + ½)/N): w²(n) + w²(n + N/2) = 1, so frames a half apart weigh every sample alike
    /// (Princen–Bradley). Main lobe ±1.5 bins, first sidelobe −23 dB, falling 12 dB an octave.
    case sine
    /// Periodic Hann, 0.5 − 0.5·cos(2πn/N): its square adds up to 3/2 at a hop of N/4. Main lobe
    /// ±2 bins, first sidelobe −31 dB, falling 18 dB an octave.
    case hann
    /// Periodic ("DFT-even") Hamming, 0.54 − 0.46·cos(2πn/N): symmetric around bin centres, as the
    /// tone search's interpolation wants (``FramePowerSpectrum``).
    case hamming

    func coefficients(_ length: Int) -> [Float] {
        let n = Double(length)
        return (0..<length).map { i in
            switch self {
            case .sine: Float(sin(Double.pi * (Double(i) + 0.5) / n))
            case .hann: Float(0.5 - 0.5 * cos(2 * Double.pi * Double(i) / n))
            case .hamming: Float(0.54 - 0.46 * cos(2 * Double.pi * Double(i) / n))
            }
        }
    }

    /// What turns |X_k|² of a frame windowed by `coefficients` into bin k's share of the frame's
    /// mean square, counting its negative-frequency twin: 2 / (N · Σw²) (Parseval; see
    /// ``FramePowerSpectrum``).
    static func meanSquareScale(_ coefficients: [Float]) -> Double {
        2 / (Double(coefficients.count) * coefficients.reduce(0.0) { $0 + Double($1) * Double($1) })
    }
}

/// FFT lengths KissFFT does fast: only factors 2, 3 and 5 (a length with a large prime factor,
/// such as 22050 = 2·3²·5²·7², takes twice as long; one near a prime takes N² time).
enum FFTLength {
    /// The smallest multiple of `multiple` (itself 2, 4, …) at or above `target` with no prime
    /// factor above 5, and at least `multiple`.
    static func nice(atLeast target: Double, multipleOf multiple: Int) -> Int {
        var length = max(multiple, Int(target.rounded(.up)))
        length += (multiple - length % multiple) % multiple
        while !isFiveSmooth(length) { length += multiple }
        return length
    }

    static func isFiveSmooth(_ value: Int) -> Bool {
        var rest = value
        for factor in [2, 3, 5] {
            while rest % factor == 0 { rest /= factor }
        }
        return rest == 1
    }
}

/// Overlapping frames of several channels: the last `length` samples of each channel in a ring,
/// handed out windowed every `hop` samples once the first frame is full. Frame j holds samples
/// offset + j·hop ..< offset + j·hop + length of its stream: with an offset of half a hop, no
/// frame's centre falls on a second's edge when the hop divides the second (it would belong to
/// both seconds equally).
///
/// Not `Sendable`: one object serves one analysis.
final class OverlappingFrames {
    let channelCount: Int
    let length: Int
    let hop: Int
    private let window: [Float]
    private let rings: UnsafeMutableBufferPointer<Float>
    private var writeIndex = 0
    private var written = 0
    private var untilFrame: Int
    /// Frames handed out so far.
    private(set) var framesHandedOut = 0

    let offset: Int

    init(channelCount: Int, length: Int, hop: Int, offset: Int, window: AnalysisWindow) {
        self.channelCount = channelCount
        self.length = length
        self.hop = hop
        self.offset = offset
        self.window = window.coefficients(length)
        rings = .allocate(capacity: channelCount * length)
        rings.initialize(repeating: 0)
        untilFrame = length + offset
    }

    deinit { rings.deallocate() }

    /// Samples this stream may take before the next frame is full.
    var samplesUntilFrame: Int { untilFrame }

    /// Appends `count` interleaved frames starting at `interleaved[0]` (stride `channelCount`);
    /// `count` must not exceed ``samplesUntilFrame``. Returns true when a frame is complete.
    func append(interleaved: UnsafeBufferPointer<Float>, count: Int) -> Bool {
        precondition(count <= untilFrame && count * channelCount <= interleaved.count)
        var index = writeIndex
        for n in 0..<count {
            let source = n * channelCount
            for channel in 0..<channelCount { rings[channel * length + index] = interleaved[source + channel] }
            index += 1
            if index == length { index = 0 }
        }
        writeIndex = index
        written += count
        untilFrame -= count
        return untilFrame == 0
    }

    /// The complete frame of `channel`, oldest sample first, times the window, into `output`
    /// (`length` samples). Call for every channel, then ``advance()``.
    func windowedFrame(channel: Int, into output: UnsafeMutableBufferPointer<Float>) {
        let ring = rings.baseAddress! + channel * length
        let first = length - writeIndex
        window.withUnsafeBufferPointer { window in
            // The oldest samples run from writeIndex to the ring's end, the newest from its start.
            for i in 0..<first { output[i] = ring[writeIndex + i] * window[i] }
            for i in 0..<writeIndex { output[first + i] = ring[i] * window[first + i] }
        }
    }

    /// First sample of the complete frame, in samples of this stream.
    var frameStart: Int { offset + framesHandedOut * hop }

    /// The frame has been taken: the next one is `hop` samples on.
    func advance() {
        framesHandedOut += 1
        untilFrame = hop
    }
}

/// The power spectrum of windowed frames, scaled so that its bins add up to the frame's mean
/// square (Parseval; see ``FramePowerSpectrum``), DC and Nyquist included at their true weight.
/// Channels are averaged, as the meter pools mean squares.
final class PooledPowerSpectrum {
    let length: Int
    private let fft: RealFFT
    private let scale: Double
    private let input: UnsafeMutableBufferPointer<Float>
    /// Bins 0 … length/2 of the current frame.
    let power: UnsafeMutableBufferPointer<Double>

    init?(length: Int, window: AnalysisWindow) {
        guard let fft = RealFFT(size: length) else { return nil }
        self.length = length
        self.fft = fft
        scale = AnalysisWindow.meanSquareScale(window.coefficients(length))
        input = .allocate(capacity: length)
        input.initialize(repeating: 0)
        power = .allocate(capacity: length / 2 + 1)
        power.initialize(repeating: 0)
    }

    deinit {
        input.deallocate()
        power.deallocate()
    }

    var binCount: Int { length / 2 + 1 }

    /// The pooled spectrum of one frame of `frames` (every channel), into ``power``.
    func analyse(_ frames: OverlappingFrames) {
        power.update(repeating: 0)
        let weight = scale / Double(frames.channelCount)
        for channel in 0..<frames.channelCount {
            frames.windowedFrame(channel: channel, into: input)
            fft.accumulatePower(of: UnsafeBufferPointer(input), into: power, weight: weight)
        }
        // Bins 0 and N/2 have no negative-frequency twin: the factor 2 does not apply.
        power[0] *= 0.5
        power[length / 2] *= 0.5
    }
}

/// Lowers the sample rate by an integer `factor` D for the low bands: a cascade of three moving
/// sums of D samples (the response of a CIC decimator, computed directly as one FIR of 3D − 2
/// taps at the output rate, so nothing accumulates), then every D-th sample.
///
/// |H(f)| = |sin(πfD/fs) / (D·sin(πf/fs))|³: at 447 Hz (the top of the 400 Hz band) 0.2–0.54 dB
/// down, undone exactly per bin by ``gain(atHz:)``; what folds back onto 0–447 Hz is at least 52 dB
/// down (54 at 44.1 and 48 kHz; 45 at 8 kHz, which holds nothing above 4 kHz).
final class Decimator {
    let factor: Int
    let channelCount: Int
    /// The FIR's taps, oldest input first.
    private let taps: [Float]
    /// Per channel, the last 3D − 3 inputs, then (while a chunk is processed) the chunk itself.
    private var scratch: UnsafeMutableBufferPointer<Float>
    private var scratchFrames: Int
    /// Inputs until the next output is due (0: the next input gives one).
    private var phase = 0
    let sampleRate: Double

    init(factor: Int, channelCount: Int, sampleRate: Double) {
        self.factor = factor
        self.channelCount = channelCount
        self.sampleRate = sampleRate
        var response: [Double] = [1]
        let box = [Double](repeating: 1, count: factor)
        for _ in 0..<3 {
            var next = [Double](repeating: 0, count: response.count + factor - 1)
            for (i, a) in response.enumerated() { for (j, b) in box.enumerated() { next[i + j] += a * b } }
            response = next
        }
        let total = pow(Double(factor), 3)
        taps = response.reversed().map { Float($0 / total) }
        scratchFrames = taps.count - 1 + 4096
        scratch = .allocate(capacity: channelCount * scratchFrames)
        scratch.initialize(repeating: 0)
    }

    deinit { scratch.deallocate() }

    /// Input samples by which an output sample's centre lags the newest input it uses.
    var delaySamples: Double { Double(taps.count - 1) / 2 }

    /// Decimates `frameCount` interleaved input frames: output m is the filter at input m·D
    /// (counting from the first input ever given). Writes the outputs due, interleaved, to
    /// `output` (room for `frameCount / D + 1` frames) and returns how many.
    func process(_ interleaved: UnsafeBufferPointer<Float>, frameCount: Int, into output: UnsafeMutablePointer<Float>)
        -> Int
    {
        let keep = taps.count - 1
        if keep + frameCount > scratchFrames {
            let grown = UnsafeMutableBufferPointer<Float>.allocate(capacity: channelCount * (keep + frameCount))
            grown.initialize(repeating: 0)
            for channel in 0..<channelCount {
                for i in 0..<keep { grown[channel * (keep + frameCount) + i] = scratch[channel * scratchFrames + i] }
            }
            scratch.deallocate()
            scratch = grown
            scratchFrames = keep + frameCount
        }
        var produced = 0
        taps.withUnsafeBufferPointer { taps in
            for channel in 0..<channelCount {
                let base = scratch.baseAddress! + channel * scratchFrames
                // The chunk behind the kept inputs: base[keep + n] is input n of this chunk.
                var source = channel
                for n in 0..<frameCount {
                    base[keep + n] = interleaved[source]
                    source += channelCount
                }
                var n = phase
                var index = 0
                while n < frameCount {
                    // Inputs n − keep … n of this chunk lie at base[n] … base[n + keep].
                    let window = base + n
                    var (s0, s1, s2, s3): (Float, Float, Float, Float) = (0, 0, 0, 0)
                    var tap = 0
                    while tap + 4 <= taps.count {
                        s0 += taps[tap] * window[tap]
                        s1 += taps[tap + 1] * window[tap + 1]
                        s2 += taps[tap + 2] * window[tap + 2]
                        s3 += taps[tap + 3] * window[tap + 3]
                        tap += 4
                    }
                    while tap < taps.count {
                        s0 += taps[tap] * window[tap]
                        tap += 1
                    }
                    output[index * channelCount + channel] = (s0 + s1) + (s2 + s3)
                    index += 1
                    n += factor
                }
                produced = index
                // Keep the last inputs for the next chunk.
                for i in 0..<keep { base[i] = base[frameCount + i] }
            }
        }
        phase = (phase + factor - frameCount % factor) % factor
        return produced
    }

    /// The filter's power gain |H(f)|² at `hz` of the input rate.
    func gain(atHz hz: Double) -> Double {
        guard factor > 1, hz > 0 else { return 1 }
        let x = Double.pi * hz / sampleRate
        let ratio = sin(x * Double(factor)) / (Double(factor) * sin(x))
        return pow(ratio * ratio, 3)
    }
}
