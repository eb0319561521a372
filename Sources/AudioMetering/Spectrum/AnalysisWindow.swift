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
