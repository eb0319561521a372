import Foundation

/// A power spectrum averaged over a recording's frames, searched for tones.
///
/// Only bins from ``ToneCalibration/lowestHz`` up to just below Nyquist count: below 20 Hz there
/// is a DC offset or handling rumble, which is not a sound a calibrator competes with.
struct ToneSpectrum {
    /// A peak: its strongest bin and the mean square in the bins around it.
    struct Peak: Equatable {
        var bin: Int
        var power: Double
    }

    /// Mean square per bin (see ``FramePowerSpectrum``).
    let power: [Double]
    /// Width of a bin: sample rate / frame length.
    let binHz: Double
    /// The bins searched and counted.
    let bins: ClosedRange<Int>

    /// Nil when no bin lies between `lowestHz` and Nyquist.
    init?(power: [Double], binHz: Double, lowestHz: Double) {
        let low = max(1, Int((lowestHz / binHz).rounded(.up)))
        let high = power.count - 2
        guard low <= high else { return nil }
        self.power = power
        self.binHz = binHz
        bins = low...high
    }

    /// Mean square of every bin searched.
    var total: Double { bins.reduce(0) { $0 + power[$1] } }

    /// The bins within ``ToneCalibration/peakHalfWidthBins`` of `bin`: a Hamming main lobe is
    /// ±2 bins wide, so ±3 holds all of it, however far the tone lies between bins.
    func band(around bin: Int) -> ClosedRange<Int> {
        let half = ToneCalibration.peakHalfWidthBins
        return max(bins.lowerBound, bin - half)...min(bins.upperBound, bin + half)
    }

    func bandPower(around bin: Int) -> Double { band(around: bin).reduce(0) { $0 + power[$1] } }

    /// The peaks, strongest first: the strongest one always, then each further one whose band
    /// holds at least `share` of `total`, at most `limit` in all. Each peak's band is taken out
    /// of the search and the sums for the next, so one tone is never counted twice.
    func peaks(share: Double, limit: Int) -> [Peak] {
        let threshold = share * total
        var taken = [Bool](repeating: false, count: power.count)
        var peaks: [Peak] = []
        while peaks.count < limit {
            var best: Int?
            var bestPower = 0.0
            for k in bins where !taken[k] && power[k] > bestPower {
                best = k
                bestPower = power[k]
            }
            guard let bin = best else { break }
            // Only bins no earlier peak took: a band overlapping the previous one must not count
            // that peak's main lobe again.
            var bandSum = 0.0
            for k in band(around: bin) where !taken[k] { bandSum += power[k] }
            let peak = Peak(bin: bin, power: bandSum)
            guard peaks.isEmpty || peak.power >= threshold else { break }
            peaks.append(peak)
            for k in band(around: bin) { taken[k] = true }
        }
        return peaks
    }

    /// The peak's frequency between bins: the vertex of a parabola through the log powers of
    /// the strongest bin and its two neighbours. On a Hamming window's main lobe this is within
    /// a few hundredths of a bin (Smith and Serra's quadratic interpolation).
    func interpolatedHz(of bin: Int) -> Double {
        guard bin > 0, bin + 1 < power.count, power[bin - 1] > 0, power[bin] > 0, power[bin + 1] > 0 else {
            return Double(bin) * binHz
        }
        let (a, b, c) = (log(power[bin - 1]), log(power[bin]), log(power[bin + 1]))
        let curvature = a - 2 * b + c
        let offset = curvature < 0 ? 0.5 * (a - c) / curvature : 0
        return (Double(bin) + max(-0.5, min(0.5, offset))) * binHz
    }
}
