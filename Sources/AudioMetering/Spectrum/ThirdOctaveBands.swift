import Foundation
import LoudnessCore

/// The third-octave bands the meter reports: base-10 bands n = 17 … 40 of IEC 61260-1, exact
/// centres 10^(n/10) Hz (50.1 Hz … 10 kHz, 24 bands), edges at centre · 10^(±1/20), labelled by
/// their nominal centres. The levels are FFT approximations of such bands (power spectra summed
/// over each band's bins), not IEC 61260 class filters: see ``SpectralMeter``.
public enum ThirdOctaveBands {
    /// Band numbers n, centre 10^(n/10) Hz.
    static let numbers = 17...40
    public static let count = SpectralSamples.bandCount

    /// Nominal centres, as IEC 61260-1 and every sound level meter name them (LoudnessCore's
    /// `SpectralSamples.nominalCentresHz`, which check-ins carry bands of).
    public static let nominalCentresHz = SpectralSamples.nominalCentresHz

    /// Exact centre of the band at `index` (0 = 50 Hz).
    public static func centreHz(_ index: Int) -> Double { pow(10, Double(numbers.lowerBound + index) / 10) }

    /// Lower and upper edge of the band at `index`.
    public static func edgesHz(_ index: Int) -> (lower: Double, upper: Double) {
        let centre = centreHz(index)
        let half = pow(10, 1.0 / 20)
        return (centre / half, centre * half)
    }

    /// Whether a recording at `sampleRate` holds the whole band: its upper edge at or below Nyquist.
    public static func isPresent(_ index: Int, sampleRate: Int) -> Bool {
        edgesHz(index).upper <= Double(sampleRate) / 2
    }

    /// Index of a nominal centre (50 → 0, 10000 → 23).
    public static func index(ofNominal hz: Int) -> Int? { nominalCentresHz.firstIndex(of: hz) }
}

/// Which bins of a power spectrum make up each band: bin k stands for the frequencies
/// (k − ½)·Δ … (k + ½)·Δ, and a band takes each bin in the proportion of that interval inside its
/// edges, so a bin straddling an edge is shared by the two bands.
struct BandBinMap {
    struct Entry {
        var bin: Int
        var weight: Double
    }

    /// Per band (of `bands`), its bins and weights; empty for a band the spectrum does not hold.
    let entries: [[Entry]]
    let bands: Range<Int>

    /// `binHz` is the bin spacing, `binCount` the bins 0 … N/2. A band is mapped only when its
    /// upper edge is at or below `nyquistHz` (the recording's, not the spectrum's).
    init(bands: Range<Int>, binHz: Double, binCount: Int, nyquistHz: Double) {
        self.bands = bands
        entries = bands.map { band in
            let (lower, upper) = ThirdOctaveBands.edgesHz(band)
            guard upper <= nyquistHz else { return [] }
            let first = max(0, Int((lower / binHz - 0.5).rounded(.down)))
            let last = min(binCount - 1, Int((upper / binHz + 0.5).rounded(.up)))
            guard first <= last else { return [] }
            return (first...last).compactMap { k in
                let low = max(lower, (Double(k) - 0.5) * binHz)
                let high = min(upper, (Double(k) + 0.5) * binHz)
                return high > low ? Entry(bin: k, weight: (high - low) / binHz) : nil
            }
        }
    }

    /// Whether the band at absolute index `band` is mapped.
    func holds(_ band: Int) -> Bool { bands.contains(band) && !entries[band - bands.lowerBound].isEmpty }

    /// A copy whose weights are multiplied by `factor(bin)`.
    func compensated(by factor: (Int) -> Double) -> BandBinMap {
        BandBinMap(
            bands: bands, entries: entries.map { $0.map { Entry(bin: $0.bin, weight: $0.weight * factor($0.bin)) } })
    }

    private init(bands: Range<Int>, entries: [[Entry]]) {
        self.bands = bands
        self.entries = entries
    }

    /// Sets `into[i]` to the power of the i-th band of ``bands`` (Σ weight · power[bin]); leaves
    /// an unmapped band's entry alone.
    @inline(__always)
    func accumulate(_ power: UnsafeBufferPointer<Double>, into: inout [Double]) {
        for (offset, bins) in entries.enumerated() where !bins.isEmpty {
            var sum = 0.0
            for entry in bins { sum += entry.weight * power[entry.bin] }
            into[offset] += sum
        }
    }
}
