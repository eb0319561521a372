import AudioClassification
import AudioTestSupport
import CSndFile
import Foundation
import Synchronization
import Testing

@testable import AudioMetering

/// The meter fed a recording's bytes as they arrive (``AudioByteStream``), against the whole-file
/// meter on the same bytes: the same levels, bands and character, with memory bounded by the
/// read-ahead, and metering that runs while the bytes still arrive.
@Suite("Metering as the bytes arrive")
struct StreamingMeterTests {
    /// Uneven pieces, as a network delivers them: some smaller than a WAV header, some larger
    /// than the read-ahead.
    static let pieces = [1000, 65536, 7, 300_000, 4096, 1_500_000]

    /// Feeds `bytes` in `pieces` while the meter runs on its own thread; `beforeLast` runs before
    /// the last piece is sent.
    static func streamed(
        _ bytes: Data, declared: Bool, maxDuration: Duration = .seconds(600), model: AudioSetModel? = nil,
        bufferedLimit: Int = 50 << 20, progress: (@Sendable (Int) -> Void)? = nil,
        beforeLast: (AudioByteStream) async throws -> Void = { _ in }
    ) async throws -> (result: Result<MeteredAudio, AudioMeteringError>, stream: AudioByteStream, sent: Int) {
        let stream = AudioByteStream(
            declaredLength: declared ? bytes.count : nil, bufferedLimit: bufferedLimit, streamedLimit: 4 << 30)
        let metering = Task {
            try await AudioMeter.measureOnThread(stream, maxDuration: maxDuration, model: model, progress: progress)
        }
        var offset = 0
        var index = 0
        feeding: while offset < bytes.count {
            var count = min(pieces[index % pieces.count], bytes.count - offset)
            // The last piece is at most 1000 bytes, so that little is missing before it.
            if bytes.count - offset > 1000 { count = min(count, bytes.count - offset - 1000) }
            if offset + count == bytes.count { try await beforeLast(stream) }
            do {
                let start = bytes.startIndex + offset
                let more = try bytes[start..<(start + count)].withUnsafeBytes { try stream.append($0) }
                guard more else { break feeding }
            } catch {
                break feeding
            }
            offset += count
            index += 1
            await stream.room()
        }
        stream.finish()
        let result: Result<MeteredAudio, AudioMeteringError>
        do {
            result = .success(try await metering.value)
        } catch let error as AudioMeteringError {
            result = .failure(error)
        }
        return (result, stream, offset)
    }

    /// Pink noise, a step to a 1 kHz tone and noise again: 12.7 s, stereo, the last 0.7 s a partial second.
    static func signal(sampleRate: Int) -> [Float] {
        let noise = TestSignal.pinkNoise(dBFS: -30, count: 5 * sampleRate, seed: 3)
        let tone = TestSignal.sine(hz: 1000, dBFS: -10, sampleRate: sampleRate, seconds: 5)
        let tail = TestSignal.pinkNoise(dBFS: -20, count: Int(2.7 * Double(sampleRate)), seed: 4)
        let left = noise + tone + tail
        let right = left.map { $0 * 0.5 }
        return TestSignal.interleave([left, right])
    }

    static let sequential: [(String, Int32)] = [
        ("WAV 16-bit", Int32(SF_FORMAT_WAV | SF_FORMAT_PCM_16)),
        ("WAV float", Int32(SF_FORMAT_WAV | SF_FORMAT_FLOAT)),
        ("AIFF 24-bit", Int32(SF_FORMAT_AIFF | SF_FORMAT_PCM_24)),
        ("FLAC 16-bit", Int32(SF_FORMAT_FLAC | SF_FORMAT_PCM_16)),
    ]

    @Test(
        "WAV, AIFF and FLAC, with and without their length, meter exactly as the whole file, read front to back",
        arguments: sequential.map(\.1), [true, false])
    func sequentialFormatsEqualWholeFile(format: Int32, declared: Bool) async throws {
        let bytes = try AudioEncoder.encode(
            Self.signal(sampleRate: 44100), channelCount: 2, sampleRate: 44100, format: format)
        let whole = try AudioMeter.measure(bytes)

        let (result, stream, sent) = try await Self.streamed(bytes, declared: declared)

        let metered = try result.get()
        #expect(sent == bytes.count)
        #expect(stream.mode == .sequential)
        #expect(metered == whole)
        #expect(metered.samples.count == 13)
    }

    @Test("Ogg Vorbis is held whole (its decoder seeks) and meters exactly as the whole file")
    func oggIsBuffered() async throws {
        let format = Int32(SF_FORMAT_OGG | SF_FORMAT_VORBIS)
        let bytes = try AudioEncoder.encode(
            Self.signal(sampleRate: 44100), channelCount: 2, sampleRate: 44100, format: format)
        let whole = try AudioMeter.measure(bytes)

        let known = try await Self.streamed(bytes, declared: true)
        let unknown = try await Self.streamed(bytes, declared: false)

        #expect(known.stream.mode == .buffered)
        #expect(try known.result.get() == whole)
        #expect(try unknown.result.get() == whole)
        // Held whole: every byte was kept at once.
        #expect(known.stream.counts.peakHeld == bytes.count)
    }

    @Test("a format held whole is too large past the buffered limit, with or without its length")
    func bufferedLimit() async throws {
        let format = Int32(SF_FORMAT_OGG | SF_FORMAT_VORBIS)
        let bytes = try AudioEncoder.encode(
            Self.signal(sampleRate: 44100), channelCount: 2, sampleRate: 44100, format: format)
        let limit = bytes.count / 2

        for declared in [true, false] {
            let (result, _, sent) = try await Self.streamed(bytes, declared: declared, bufferedLimit: limit)
            guard case .failure(.tooLarge(let count, let limitBytes, let buffered)) = result else {
                Issue.record("expected tooLarge, got \(result)")
                continue
            }
            #expect(count > limit && limitBytes == limit && buffered)
            #expect(sent < bytes.count)
        }
    }

    @Test("20 minutes of WAV are metered holding about the read-ahead of its 19 MB, never the whole")
    func memoryBounded() async throws {
        let sampleRate = 8000
        let tone = TestSignal.sine(hz: 440, dBFS: -12, sampleRate: sampleRate, seconds: 1200)
        let bytes = try AudioEncoder.encode(tone, channelCount: 1, sampleRate: sampleRate)

        for declared in [true, false] {
            let (result, stream, _) = try await Self.streamed(bytes, declared: declared, maxDuration: .seconds(1300))

            let metered = try result.get()
            #expect(metered.samples.count == 1200)
            #expect(metered.samples.allSatisfy { abs($0.averageDBFS - (-12 - sineCrestDB)) < 0.05 })
            let (received, peakHeld) = stream.counts
            #expect(received == bytes.count)
            // The read-ahead, the bytes kept behind the decoder before they are dropped, and one piece.
            let bound = AudioByteStream.readAhead + 5 * AudioByteStream.keptBehind + Self.pieces.max()!
            #expect(peakHeld <= bound, "held \(peakHeld) of \(bytes.count) bytes")
        }
    }

    @Test(
        "a chunked upload is metered while it arrives: 59 of 60 seconds are metered before the last piece is sent",
        .timeLimit(.minutes(10)))
    func progressesBeforeTheEnd() async throws {
        let sampleRate = 8000
        let tone = TestSignal.sine(hz: 440, dBFS: -12, sampleRate: sampleRate, seconds: 60)
        let bytes = try AudioEncoder.encode(tone, channelCount: 1, sampleRate: sampleRate)
        let metered = Mutex(0)

        var meteredBeforeLast = 0
        let (result, _, _) = try await Self.streamed(
            bytes, declared: false, progress: { seconds in metered.withLock { $0 = seconds } },
            beforeLast: { stream in
                // Waits until the decoder waits for bytes it has not got (or has stopped): what is
                // metered then is all it meters without the last piece. A meter that waited for the
                // end would wait at 0 seconds; no clock is involved, so a loaded machine only slows it.
                while !stream.decoderWaitsForMore {
                    try await Task.sleep(for: .milliseconds(10))
                }
                meteredBeforeLast = metered.withLock { $0 }
            })

        #expect(meteredBeforeLast == 59)
        #expect(try result.get().samples.count == 60)
    }

    @Test("a recording past the duration limit stops the stream long before its end")
    func tooLongStopsEarly() async throws {
        // Noise, so that FLAC cannot shrink it much: the bytes of the first minute stay far from the end.
        let sampleRate = 8000
        let noise = TestSignal.noise(amplitude: 0.3, count: 600 * sampleRate, seed: 5)
        let wav = try AudioEncoder.encode(noise, channelCount: 1, sampleRate: sampleRate)
        let flac = try AudioEncoder.encode(
            noise, channelCount: 1, sampleRate: sampleRate, format: Int32(SF_FORMAT_FLAC | SF_FORMAT_PCM_16))

        for bytes in [wav, flac] {
            let (result, _, sent) = try await Self.streamed(bytes, declared: false, maxDuration: .seconds(60))

            guard case .failure(.tooLong(_, let limit)) = result else {
                Issue.record("expected tooLong, got \(result)")
                continue
            }
            #expect(limit == 60)
            #expect(sent < bytes.count / 2)
        }
    }

    @Test("bytes that are not audio, sent without a length, are read whole and then refused as unreadable")
    func garbage() async throws {
        let bytes = Data((0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 7919) })

        let (result, _, sent) = try await Self.streamed(bytes, declared: false)

        guard case .failure(.unreadable) = result else {
            Issue.record("expected unreadable, got \(result)")
            return
        }
        #expect(sent == bytes.count)
    }

    @Test(
        "with the AudioSet model, the character of a streamed recording equals the whole file's",
        .enabled(if: LearnedCharacterTests.hasModel, "run scripts/deps.sh"))
    func characterWithModel() async throws {
        let sampleRate = 16000
        let noise = TestSignal.pinkNoise(dBFS: -25, count: 22 * sampleRate, seed: 11)
        let tone = TestSignal.sine(hz: 440, dBFS: -15, sampleRate: sampleRate, seconds: 19)
        let bytes = try AudioEncoder.encode(noise + tone, channelCount: 1, sampleRate: sampleRate)
        let whole = try AudioMeter.measure(bytes, model: LearnedCharacterTests.model)

        let (result, _, _) = try await Self.streamed(bytes, declared: false, model: LearnedCharacterTests.model)

        let streamed = try result.get()
        #expect(streamed.character.classifier == AudioSetModel.name)
        #expect(streamed.character.windows.count == 4)
        #expect(streamed == whole)
    }
}
