import CSampleRate
import Foundation

/// Interleaved audio of any rate and channel count → mono at 16 kHz, streaming: channels averaged,
/// then libsamplerate's `SRC_SINC_FASTEST` converter (band-limited sinc interpolation, about
/// 97 dB of signal-to-noise, pass band to 80 % of the lower Nyquist frequency, here 6.4 kHz — the
/// model's highest mel band ends at 7.5 kHz, so at most its top bands lose a little). A 16 kHz
/// recording passes through untouched.
final class Resampler {
    let inputRate: Int
    let channelCount: Int
    private let state: OpaquePointer?
    private var mono: [Float] = [0]
    private var output: [Float] = [0]
    private let ratio: Double

    /// Nil when libsamplerate refuses the ratio (it takes 1/256 … 256).
    init?(inputRate: Int, channelCount: Int) {
        guard inputRate > 0, channelCount > 0 else { return nil }
        self.inputRate = inputRate
        self.channelCount = channelCount
        ratio = Double(LogMelFrontEnd.sampleRate) / Double(inputRate)
        if inputRate == LogMelFrontEnd.sampleRate {
            state = nil
        } else {
            guard src_is_valid_ratio(ratio) != 0 else { return nil }
            var error: Int32 = 0
            guard let state = src_new(Int32(SRC_SINC_FASTEST), 1, &error), error == 0 else { return nil }
            self.state = state
        }
    }

    deinit {
        if let state { src_delete(state) }
    }

    /// Converts `frameCount` interleaved frames and hands the 16 kHz samples to `body`.
    func process(
        _ interleaved: UnsafeBufferPointer<Float>, frameCount: Int, endOfInput: Bool = false,
        _ body: (UnsafeBufferPointer<Float>) -> Void
    ) {
        if mono.count < frameCount { mono = [Float](repeating: 0, count: frameCount) }
        let scale = 1 / Float(channelCount)
        for frame in 0..<frameCount {
            var sum: Float = 0
            for channel in 0..<channelCount { sum += interleaved[frame * channelCount + channel] }
            mono[frame] = sum * scale
        }
        guard let state else {
            mono.withUnsafeBufferPointer { body(UnsafeBufferPointer(rebasing: $0[0..<frameCount])) }
            return
        }
        let capacity = Int((Double(frameCount) * ratio).rounded(.up)) + 64
        if output.count < capacity { output = [Float](repeating: 0, count: capacity) }
        var offset = 0
        repeat {
            var generated = 0
            var used = 0
            mono.withUnsafeBufferPointer { input in
                output.withUnsafeMutableBufferPointer { out in
                    var data = SRC_DATA(
                        data_in: input.baseAddress! + offset, data_out: out.baseAddress!,
                        input_frames: frameCount - offset, output_frames: out.count, input_frames_used: 0,
                        output_frames_gen: 0, end_of_input: endOfInput ? 1 : 0, src_ratio: ratio)
                    if src_process(state, &data) == 0 {
                        generated = data.output_frames_gen
                        used = data.input_frames_used
                    }
                }
            }
            if generated > 0 {
                output.withUnsafeBufferPointer { body(UnsafeBufferPointer(rebasing: $0[0..<generated])) }
            }
            offset += used
            if used == 0 && generated == 0 { break }
        } while offset < frameCount
    }

    /// Flushes what the converter still holds (its filter's delay) at the end of the recording.
    func finish(_ body: (UnsafeBufferPointer<Float>) -> Void) {
        guard state != nil else { return }
        let empty: [Float] = [0]
        for _ in 0..<8 {
            var produced = 0
            empty.withUnsafeBufferPointer { input in
                process(UnsafeBufferPointer(rebasing: input[0..<0]), frameCount: 0, endOfInput: true) {
                    produced += $0.count
                    body($0)
                }
            }
            if produced == 0 { break }
        }
    }
}
