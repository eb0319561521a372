import CKissFFT
import Foundation

/// YAMNet's front end: 16 kHz mono samples → 25 ms frames every 10 ms (periodic Hann window,
/// 512-point FFT) → magnitudes → 64 mel bands from 125 to 7500 Hz (HTK mel scale, triangles
/// spaced evenly in mel, the DC bin left out) → ln(band + 0.001) → patches of 96 frames (0.96 s)
/// every 48 frames (0.48 s).
///
/// These are the values of the model's own feature extractor (`yamnet/params.py` and
/// `features.py` of the TensorFlow models repository: `stft_window_seconds` 0.025,
/// `stft_hop_seconds` 0.010, `mel_bands` 64, `mel_min_hz` 125, `mel_max_hz` 7500,
/// `log_offset` 0.001, `patch_window_seconds` 0.96, `patch_hop_seconds` 0.48); the 8-bit export's
/// input grid agrees: its lowest value is ln(0.001). Checked against a NumPy computation of the
/// same definition (LogMelFrontEndTests).
///
/// Streaming: holds one frame of samples and one patch of frames. Not `Sendable`; one per recording.
public final class LogMelFrontEnd {
    public static let sampleRate = 16000
    public static let frameLength = 400
    public static let hop = 160
    public static let fftLength = 512
    public static let bands = 64
    public static let lowestHz = 125.0
    public static let highestHz = 7500.0
    public static let logOffset: Float = 0.001
    public static let patchFrames = 96
    public static let patchHopFrames = 48

    /// A patch's first frame starts this long after the start of the recording, seconds.
    public static func patchStartSeconds(_ index: Int) -> Double {
        Double(index * patchHopFrames * hop) / Double(sampleRate)
    }

    /// Patch length, seconds (0.975: 95 hops and one frame).
    public static let patchSeconds = Double((patchFrames - 1) * hop + frameLength) / Double(sampleRate)

    /// [fft bin][band], row-major: 257 × 64.
    static let melWeights: [Float] = makeMelWeights()
    static let window: [Float] = (0..<frameLength).map {
        Float(0.5 - 0.5 * cos(2 * Double.pi * Double($0) / Double(frameLength)))
    }

    private let plan: kiss_fftr_cfg
    private let spectrum: UnsafeMutableBufferPointer<kiss_fft_cpx>
    private var frameInput = [Float](repeating: 0, count: fftLength)
    private var pending: [Float] = []
    private var frames: [Float] = []
    private var framesInPatch = 0
    /// Called with each finished patch: `patchFrames` × `bands` values, frame by frame.
    private let onPatch: ([Float]) -> Void

    public init(onPatch: @escaping ([Float]) -> Void) {
        plan = kiss_fftr_alloc(Int32(Self.fftLength), 0, nil, nil)!
        spectrum = .allocate(capacity: Self.fftLength / 2 + 1)
        self.onPatch = onPatch
        pending.reserveCapacity(Self.frameLength + 4096)
        frames.reserveCapacity(Self.patchFrames * Self.bands)
    }

    deinit {
        free(UnsafeMutableRawPointer(plan))
        spectrum.deallocate()
    }

    /// Adds 16 kHz mono samples.
    public func consume(_ samples: UnsafeBufferPointer<Float>) {
        pending.append(contentsOf: samples)
        var start = 0
        while pending.count - start >= Self.frameLength {
            addFrame(pending[start..<(start + Self.frameLength)])
            start += Self.hop
        }
        pending.removeFirst(start)
    }

    /// The log-mel bands of one frame of `frameLength` samples.
    func logMel(_ samples: ArraySlice<Float>) -> [Float] {
        var index = 0
        for sample in samples {
            frameInput[index] = sample * Self.window[index]
            index += 1
        }
        for i in Self.frameLength..<Self.fftLength { frameInput[i] = 0 }
        frameInput.withUnsafeBufferPointer { kiss_fftr(plan, $0.baseAddress, spectrum.baseAddress) }
        var bands = [Float](repeating: 0, count: Self.bands)
        Self.melWeights.withUnsafeBufferPointer { weights in
            for bin in 1...(Self.fftLength / 2) {
                let re = spectrum[bin].r
                let im = spectrum[bin].i
                let magnitude = (re * re + im * im).squareRoot()
                let row = bin * Self.bands
                for band in 0..<Self.bands { bands[band] += magnitude * weights[row + band] }
            }
        }
        return bands.map { log($0 + Self.logOffset) }
    }

    private func addFrame(_ samples: ArraySlice<Float>) {
        frames.append(contentsOf: logMel(samples))
        framesInPatch += 1
        if framesInPatch == Self.patchFrames {
            onPatch(frames)
            frames.removeFirst(Self.patchHopFrames * Self.bands)
            framesInPatch -= Self.patchHopFrames
        }
    }

    static func hertzToMel(_ hertz: Double) -> Double { 1127 * log(1 + hertz / 700) }

    private static func makeMelWeights() -> [Float] {
        let bins = fftLength / 2 + 1
        let nyquist = Double(sampleRate) / 2
        let low = hertzToMel(lowestHz)
        let high = hertzToMel(highestHz)
        let edges = (0...(bands + 1)).map { low + (high - low) * Double($0) / Double(bands + 1) }
        var weights = [Float](repeating: 0, count: bins * bands)
        for bin in 1..<bins {
            let mel = hertzToMel(nyquist * Double(bin) / Double(bins - 1))
            for band in 0..<bands {
                let (lower, center, upper) = (edges[band], edges[band + 1], edges[band + 2])
                let weight = max(0, min((mel - lower) / (center - lower), (upper - mel) / (upper - center)))
                weights[bin * bands + band] = Float(weight)
            }
        }
        return weights
    }
}
