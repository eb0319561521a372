import AudioClassification
import AudioMetering
import Foundation

// Times AudioMeter.measure on 48 kHz stereo 16-bit WAV built in memory (or on a file given as
// the argument) and prints how many times faster than real time it runs, and the process's
// memory: resident with the audio loaded, and at its peak while metering (the difference is what
// the meter itself needs; the audio's bytes are the caller's). `--model DIR` first: with the
// AudioSet model in DIR labelling the character (its load is not timed; its weights count in
// "resident with the audio loaded"). Use `-c release`.
var arguments = Array(CommandLine.arguments.dropFirst())
var model: AudioSetModel?
if arguments.first == "--model", arguments.count >= 2 {
    model = try AudioSetModel(folder: URL(fileURLWithPath: arguments[1]))
    arguments.removeFirst(2)
}
let audio: Data
if let path = arguments.first, !path.allSatisfy(\.isNumber) {
    audio = try Data(contentsOf: URL(fileURLWithPath: path))
} else {
    audio = stereoWAV(seconds: Int(arguments.first ?? "") ?? 300, sampleRate: 48000)
}
let loaded = residentBytes()

var best = Duration.seconds(1_000_000)
var metered: MeteredAudio?
for _ in 0..<3 {
    let clock = ContinuousClock()
    let start = clock.now
    metered = try AudioMeter.measure(audio, maxDuration: .seconds(3600), model: model)
    best = min(best, clock.now - start)
}
let format = metered!.format
let speed = format.durationSeconds / (best / .seconds(1))
print(
    "\(format.formatName), \(format.encodingName), \(format.sampleRate) Hz × \(format.channelCount); "
        + "character by \(metered!.character.classifier)")
print("\(format.durationSeconds) s of audio in \(best) (best of 3): \(Int(speed))× real time")
let peak = peakResidentBytes()
print(
    "memory: \(mebibytes(audio.count)) of audio; resident \(mebibytes(loaded)) with it loaded, "
        + "peak \(mebibytes(peak)) (+\(mebibytes(max(0, peak - loaded))) while metering)")

/// Resident set size now, from /proc/self/statm (0 where there is none).
func residentBytes() -> Int {
    guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8),
        let pages = text.split(separator: " ").dropFirst().first.flatMap({ Int($0) })
    else { return 0 }
    return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
}

/// The process's peak resident set size (getrusage: KiB on Linux).
func peakResidentBytes() -> Int {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    return Int(usage.ru_maxrss) * 1024
}

func mebibytes(_ bytes: Int) -> String { String(format: "%.1f MiB", Double(bytes) / 1_048_576) }

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
