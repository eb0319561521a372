import Foundation

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
