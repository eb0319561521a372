import AudioClassification
import Foundation

/// Turns an audio file held in memory into per-second level samples, like the phones send, with
/// C-weighted and third-octave levels beside them and the sound's character over ~10 s windows.
///
/// Memory: decoding streams through a buffer of 4096 frames; beyond it the meter holds one short
/// (~40 ms) and one long (~0.5 s, decimated) frame per channel, the frame envelopes of at most
/// 15 seconds, and the per-second results it returns; with the AudioSet model, one 25 ms frame at
/// 16 kHz, one 0.96 s patch of log-mel bands and 521 class scores per 0.48 s (about 2.7 MB for 10
/// minutes). No audio is kept or written anywhere.
public enum AudioMeter {
    /// Frames per `sf_readf_float` call: large enough to amortise the call, small enough for L1/L2.
    static let chunkFrames = 4096

    /// Decodes `audio` with libsndfile (any format, rate and channel count it reads) and meters
    /// every second. See `TrailingPartialSecond` for the last, partial second; the character's
    /// windows cover the seconds reported.
    /// - Throws: `.unreadable` for corrupt or unsupported bytes, `.decodingFailed` for a decoder
    ///   error part-way, `.tooLong` when the audio lasts longer than `maxDuration`.
    /// - Parameter model: the AudioSet model that labels the character's windows
    ///   (``LearnedCharacterRules``); without it, ``SoundCharacterRules`` label them from the spectra.
    public static func measure(
        _ audio: Data, maxDuration: Duration = .seconds(600), rules: SoundCharacterRules = SoundCharacterRules(),
        model: AudioSetModel? = nil, learnedRules: LearnedCharacterRules = LearnedCharacterRules()
    ) throws(AudioMeteringError) -> MeteredAudio {
        let file = try MemorySoundFile(reading: audio)
        let sampleRate = Int(file.info.samplerate)
        let channelCount = Int(file.info.channels)
        guard sampleRate > 0, channelCount > 0 else {
            throw .unreadable(libsndfileMessage: "header gives \(sampleRate) Hz, \(channelCount) channels")
        }
        let limitSeconds = maxDuration / .seconds(1)
        if let frames = file.headerFrameCount, Double(frames) / Double(sampleRate) > limitSeconds {
            throw .tooLong(durationSeconds: Double(frames) / Double(sampleRate), limitSeconds: limitSeconds)
        }
        let maxFrames = Int((limitSeconds * Double(sampleRate)).rounded(.down))

        var meter = SecondLevelMeter(sampleRate: sampleRate, channelCount: channelCount)
        let spectral = SpectralMeter(sampleRate: sampleRate, channelCount: channelCount)
        let classifier = model.flatMap {
            RecordingClassifier(model: $0, sampleRate: sampleRate, channelCount: channelCount)
        }
        let buffer = UnsafeMutableBufferPointer<Float>.allocate(capacity: chunkFrames * channelCount)
        defer { buffer.deallocate() }
        var decodedFrames = 0
        while true {
            let wanted = min(chunkFrames, meter.framesLeftInSecond)
            let read = try file.readFrames(into: buffer.baseAddress!, frameCount: wanted)
            guard read > 0 else { break }
            decodedFrames += read
            guard decodedFrames <= maxFrames else {
                throw .tooLong(durationSeconds: Double(decodedFrames) / Double(sampleRate), limitSeconds: limitSeconds)
            }
            meter.consume(UnsafeBufferPointer(buffer), frameCount: read)
            spectral.consume(UnsafeBufferPointer(buffer), frameCount: read)
            classifier?.consume(UnsafeBufferPointer(buffer), frameCount: read)
        }
        classifier?.finish()
        let trailing = meter.finish()
        var samples = meter.samples
        let windows = spectral.finish(secondCount: samples.count)
        for index in samples.indices {
            samples[index].bandsDBFS = spectral.bandPowers(second: index).map { $0.map(Decibels.fromMeanSquare) }
        }
        let character = SoundCharacterAnalysis.character(
            samples: samples, windows: windows, rules: rules, classifier: classifier, learnedRules: learnedRules)

        let format = AudioFormatDescription(
            sampleRate: sampleRate, channelCount: channelCount, frameCount: decodedFrames,
            durationSeconds: Double(decodedFrames) / Double(sampleRate),
            formatName: file.formatName, encodingName: file.encodingName)
        return MeteredAudio(format: format, samples: samples, trailingPartialSecond: trailing, character: character)
    }
}
