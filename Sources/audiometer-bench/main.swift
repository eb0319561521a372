import AudioMetering
import Foundation

// Times AudioMeter.measure on 48 kHz stereo 16-bit WAV built in memory (or on a file given as
// the argument) and prints how many times faster than real time it runs. Use `-c release`.
let arguments = CommandLine.arguments.dropFirst()
let audio: Data
if let path = arguments.first, !path.allSatisfy(\.isNumber) {
    audio = try Data(contentsOf: URL(fileURLWithPath: path))
} else {
    audio = stereoWAV(seconds: Int(arguments.first ?? "") ?? 300, sampleRate: 48000)
}

var best = Duration.seconds(1_000_000)
var metered: MeteredAudio?
for _ in 0..<3 {
    let clock = ContinuousClock()
    let start = clock.now
    metered = try AudioMeter.measure(audio, maxDuration: .seconds(3600))
    best = min(best, clock.now - start)
}
let format = metered!.format
let speed = format.durationSeconds / (best / .seconds(1))
print("\(format.formatName), \(format.encodingName), \(format.sampleRate) Hz × \(format.channelCount)")
print("\(format.durationSeconds) s of audio in \(best) (best of 3): \(Int(speed))× real time")

/// 16-bit PCM WAV: a 1 kHz tone in the left channel and a slow sweep in the right.
func stereoWAV(seconds: Int, sampleRate: Int) -> Data {
    let frames = seconds * sampleRate
    var data = Data(capacity: 44 + frames * 4)
    func append<T: FixedWidthInteger>(_ value: T) {
        withUnsafeBytes(of: value.littleEndian) { data.append(contentsOf: $0) }
    }
    data.append(contentsOf: Array("RIFF".utf8))
    append(UInt32(36 + frames * 4))
    data.append(contentsOf: Array("WAVEfmt ".utf8))
    for value: UInt32 in [16, 0x0002_0001, UInt32(sampleRate), UInt32(sampleRate * 4), 0x0010_0004] { append(value) }
    data.append(contentsOf: Array("data".utf8))
    append(UInt32(frames * 4))
    var phase = 0.0
    for n in 0..<frames {
        let t = Double(n) / Double(sampleRate)
        phase += 2 * Double.pi * (100 + 50 * t) / Double(sampleRate)
        append(Int16(12000 * sin(2 * Double.pi * 1000 * t)))
        append(Int16(8000 * sin(phase)))
    }
    return data
}
