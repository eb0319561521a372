import Foundation

/// The power spectrum of one frame: a periodic Hamming window (``AnalysisWindow/hamming``),
/// KissFFT, and a scale that makes the bins add up to the frame's mean square.
///
/// Scale: for a window w of length N, Parseval gives Σ_k |X_k|² = N · Σ_n (x_n·w_n)², whose
/// expectation is N · Σw² · mean square. So bin k (0 < k < N/2, counting its negative-frequency
/// twin) holds 2·|X_k|² / (N · Σw²) of mean square, and a sine of amplitude A puts A²/2 — its
/// own mean square — into the bins of its main lobe. Channels are averaged, as the meter pools
/// the mean square over channels. DC and Nyquist (k = 0, N/2) get the same factor 2 and are
/// therefore wrong by 2; the tone search never looks at them.
struct FramePowerSpectrum {
    let frameLength: Int
    private let fft: RealFFT
    private let window: [Float]
    private let binScale: Double
    private var windowed: [Float]

    /// Nil for a frame length KissFFT's real transform cannot take (odd or < 2).
    init?(frameLength: Int) {
        guard let fft = RealFFT(size: frameLength) else { return nil }
        self.frameLength = frameLength
        self.fft = fft
        window = AnalysisWindow.hamming.coefficients(frameLength)
        binScale = AnalysisWindow.meanSquareScale(window)
        windowed = [Float](repeating: 0, count: frameLength)
    }

    /// Bins 0 … N/2.
    var binCount: Int { frameLength / 2 + 1 }

    /// Adds the frame's per-bin mean square, averaged over `channels`, times `weight`, to `power`.
    mutating func add(_ channels: [[Float]], weight: Double = 1, to power: inout [Double]) {
        precondition(power.count == binCount)
        let channelWeight = weight * binScale / Double(channels.count)
        for channel in channels {
            precondition(channel.count == frameLength)
            for i in 0..<frameLength { windowed[i] = channel[i] * window[i] }
            windowed.withUnsafeBufferPointer { input in
                power.withUnsafeMutableBufferPointer { output in
                    fft.accumulatePower(of: input, into: output, weight: channelWeight)
                }
            }
        }
    }
}
