import AudioClassification
import CSndFile
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
        return try measure(file, maxDuration: maxDuration, rules: rules, model: model, learnedRules: learnedRules)
    }

    /// Meters the audio file at `path`, which libsndfile reads a buffer at a time (and seeks in, for
    /// the formats that need it): memory does not grow with the file, whatever its format.
    public static func measure(
        fileAt path: String, maxDuration: Duration, rules: SoundCharacterRules = SoundCharacterRules(),
        model: AudioSetModel? = nil, learnedRules: LearnedCharacterRules = LearnedCharacterRules()
    ) throws(AudioMeteringError) -> MeteredAudio {
        let file = try MemorySoundFile(path: path)
        return try measure(file, maxDuration: maxDuration, rules: rules, model: model, learnedRules: learnedRules)
    }

    /// The containers libsndfile reads front to back once opened, so that a stream of them is
    /// decoded with bounded memory (``AudioByteStream``): WAV, WAVEX, W64, RF64, AIFF, AU and FLAC.
    /// Every other container (Ogg Vorbis and Opus, MP3, CAF, …) is held whole.
    public static let sequentialFormats = Set(
        [SF_FORMAT_WAV, SF_FORMAT_WAVEX, SF_FORMAT_W64, SF_FORMAT_RF64, SF_FORMAT_AIFF, SF_FORMAT_AU, SF_FORMAT_FLAC]
            .map { Int32($0) })

    /// Meters a recording as its bytes arrive in `stream`, on the calling thread, which waits for
    /// bytes not yet there: the same levels, bands and character as the whole-file
    /// ``measure(_:maxDuration:rules:model:learnedRules:)`` (the same decoder reads the same bytes).
    /// Call it on a thread of its own while a producer appends. `progress` hears the seconds
    /// metered so far, once a second of audio.
    /// - Throws: as the whole-file meter, and the producer's error (``AudioByteStream/fail(_:)``,
    ///   ``AudioMeteringError/tooLarge(bytes:limitBytes:buffered:)``) when it stopped the stream.
    public static func measure(
        _ stream: AudioByteStream, maxDuration: Duration = .seconds(600),
        rules: SoundCharacterRules = SoundCharacterRules(), model: AudioSetModel? = nil,
        learnedRules: LearnedCharacterRules = LearnedCharacterRules(), progress: ((Int) -> Void)? = nil
    ) throws(AudioMeteringError) -> MeteredAudio {
        defer { stream.closeReading() }
        do throws(AudioMeteringError) {
            let file = try MemorySoundFile(streaming: stream)
            try stream.enter(sequentialFormats.contains(file.formatType) ? .sequential : .buffered)
            let metered = try measure(
                file, maxDuration: maxDuration, rules: rules, model: model, learnedRules: learnedRules,
                progress: progress)
            if let failure = stream.producerFailure { throw failure }
            return metered
        } catch {
            // The producer's failure explains what the decoder saw (an early end).
            throw stream.producerFailure ?? error
        }
    }

    /// Meters `stream` on a thread of its own (it waits for bytes, which must not hold up a shared
    /// pool), for the producer to append meanwhile on the caller's task.
    public static func measureOnThread(
        _ stream: AudioByteStream, maxDuration: Duration, model: AudioSetModel?,
        progress: (@Sendable (Int) -> Void)? = nil
    ) async throws(AudioMeteringError) -> MeteredAudio {
        let result = await withCheckedContinuation {
            (continuation: CheckedContinuation<Result<MeteredAudio, AudioMeteringError>, Never>) in
            let thread = Thread {
                do throws(AudioMeteringError) {
                    continuation.resume(
                        returning: .success(
                            try measure(stream, maxDuration: maxDuration, model: model, progress: progress)))
                } catch {
                    continuation.resume(returning: .failure(error))
                }
            }
            thread.name = "hearclear.meter"
            thread.stackSize = 4 << 20
            thread.start()
        }
        return try result.get()
    }

    private static func measure(
        _ file: borrowing MemorySoundFile, maxDuration: Duration, rules: SoundCharacterRules, model: AudioSetModel?,
        learnedRules: LearnedCharacterRules, progress: ((Int) -> Void)? = nil
    ) throws(AudioMeteringError) -> MeteredAudio {
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
            if let progress, meter.framesInSecond == 0 { progress(meter.samples.count) }
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
