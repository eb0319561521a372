import AudioMetering
import CSndFile
import Foundation

/// Encodes `channels` (one array per channel) in memory, then meters the bytes.
func meter(
    _ channels: [[Float]], sampleRate: Int, format: Int32 = AudioEncoder.wav16
) throws -> MeteredAudio {
    let bytes = try AudioEncoder.encode(
        TestSignal.interleave(channels), channelCount: channels.count, sampleRate: sampleRate, format: format)
    return try AudioMeter.measure(bytes)
}

/// 10·log10(2): a sine's RMS lies this far below its peak.
let sineCrestDB = 10 * log10(2.0)
