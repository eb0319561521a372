import CKissFFT
import Foundation

/// A forward real FFT of one fixed, even length, by KissFFT (Debian's `libkissfft-float`).
///
/// The KissFFT plan (`kiss_fftr_cfg`, twiddles and scratch) is allocated once and freed with the
/// object; so is the output buffer. Not `Sendable`: KissFFT writes its scratch space inside the
/// plan, so one object serves one analysis at a time.
final class RealFFT {
    /// Samples per transform.
    let size: Int
    private let plan: kiss_fftr_cfg
    private let output: UnsafeMutableBufferPointer<kiss_fft_cpx>

    /// Nil when `size` is odd or not positive (KissFFT's real transform needs an even length) or
    /// the plan cannot be allocated.
    init?(size: Int) {
        guard size >= 2, size.isMultiple(of: 2), size <= Int(Int32.max),
            let plan = kiss_fftr_alloc(Int32(size), 0, nil, nil)
        else { return nil }
        self.size = size
        self.plan = plan
        output = .allocate(capacity: size / 2 + 1)
    }

    deinit {
        // kiss_fftr_free is a macro for free(), which Swift cannot import.
        free(UnsafeMutableRawPointer(plan))
        output.deallocate()
    }

    /// Transforms `input` (exactly `size` samples) and adds `weight · |X_k|²` to `power[k]` for
    /// k = 0 … size/2, so that spectra of several channels or frames can be summed in place.
    func accumulatePower(
        of input: UnsafeBufferPointer<Float>, into power: UnsafeMutableBufferPointer<Double>, weight: Double
    ) {
        precondition(input.count == size && power.count == size / 2 + 1)
        guard let samples = input.baseAddress, let bins = output.baseAddress else { return }
        kiss_fftr(plan, samples, bins)
        for k in 0...(size / 2) {
            let re = Double(bins[k].r)
            let im = Double(bins[k].i)
            power[k] += weight * (re * re + im * im)
        }
    }
}
