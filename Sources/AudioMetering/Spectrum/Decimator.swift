import Foundation

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
