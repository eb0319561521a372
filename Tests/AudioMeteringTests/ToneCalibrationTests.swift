import AudioMetering
import CSndFile
import Foundation
import Testing

/// Reference calibration with a calibrator tone: signals made here, encoded by libsndfile in
/// memory, and their levels checked against the sine's analytic RMS (amplitude/√2) and sox.
@Suite("Tone calibration")
struct ToneCalibrationTests {
    static let wav24 = Int32(SF_FORMAT_WAV | SF_FORMAT_PCM_24)

    /// A sine whose RMS, not peak, is `rmsDBFS`: amplitude = √2 · 10^(rms/20).
    static func sine(hz: Double, rmsDBFS: Double, sampleRate: Int, seconds: Double, phase: Double = 0) -> [Float] {
        let amplitude = sqrt(2) * pow(10, rmsDBFS / 20)
        let count = Int((Double(sampleRate) * seconds).rounded())
        return (0..<count).map { n in
            Float(amplitude * sin(2 * Double.pi * hz * Double(n) / Double(sampleRate) + phase))
        }
    }

    /// The independent level: 20·log10 of the RMS of a sine of this amplitude, amplitude/√2.
    static func analyticRMSDBFS(amplitude: Double) -> Double { 20 * log10(amplitude / sqrt(2)) }

    static func mix(_ signals: [Float]...) -> [Float] {
        signals.dropFirst().reduce(signals[0]) { sum, signal in zip(sum, signal).map { $0 + $1 } }
    }

    static func calibrate(
        _ mono: [Float], sampleRate: Int, referenceDB: Double = 94, format: Int32 = wav24
    ) throws -> ToneCalibrationResult {
        let wav = try AudioEncoder.encode(mono, channelCount: 1, sampleRate: sampleRate, format: format)
        return try ToneCalibration.measure(wav, referenceDB: referenceDB)
    }

    /// The reason `body` gave no offset, or nil (with an issue recorded) when it gave one.
    static func refusal(_ body: () throws -> ToneCalibrationResult) -> NoToneReason? {
        do {
            let result = try body()
            Issue.record("expected a refusal, got \(result)")
        } catch let error as ToneCalibrationError {
            guard case .noTone(let reason) = error else {
                Issue.record("expected .noTone, got \(error)")
                return nil
            }
            return reason
        } catch {
            Issue.record("unexpected error \(error)")
        }
        return nil
    }

    // MARK: - Accepted

    @Test(
        "1 kHz at −26 dBFS with a 94 dB calibrator gives an offset of 120.0 ± 0.1 dB, at 44.1 and 48 kHz",
        arguments: [44100, 48000])
    func oneKilohertz(sampleRate: Int) throws {
        let result = try Self.calibrate(
            Self.sine(hz: 1000, rmsDBFS: -26, sampleRate: sampleRate, seconds: 5), sampleRate: sampleRate)

        let analytic = Self.analyticRMSDBFS(amplitude: sqrt(2) * pow(10, -26.0 / 20))
        #expect(abs(analytic - -26) < 1e-9)
        #expect(abs(result.levelDBFS - analytic) < 0.1, "level \(result.levelDBFS)")
        #expect(abs(result.offsetDB - 120) < 0.1, "offset \(result.offsetDB)")
        #expect(result.referenceDB == 94)
        #expect(abs(result.frequencyHz - 1000) < 0.1, "frequency \(result.frequencyHz)")
        #expect(result.snrDB > 60, "24-bit quantisation noise lies > 100 dB down: \(result.snrDB)")
        #expect(result.seconds == 5)
        #expect(result.secondLevelsDBFS.count == 5)
        #expect(result.secondLevelsDBFS.allSatisfy { abs($0 - -26) < 0.1 })
    }

    @Test("a 250 Hz calibrator at 114 dB works too")
    func twoHundredFiftyHertz() throws {
        let result = try Self.calibrate(
            Self.sine(hz: 250, rmsDBFS: -40, sampleRate: 48000, seconds: 4), sampleRate: 48000, referenceDB: 114)

        #expect(abs(result.levelDBFS - -40) < 0.1, "level \(result.levelDBFS)")
        #expect(abs(result.offsetDB - 154) < 0.1, "offset \(result.offsetDB)")
        #expect(abs(result.frequencyHz - 250) < 0.1, "frequency \(result.frequencyHz)")
    }

    @Test(
        "a tone between bins (1003.7 Hz) is placed within 1 Hz and its level is still within 0.1 dB",
        arguments: [1003.7, 1000.5, 251.25])
    func offBin(hz: Double) throws {
        let result = try Self.calibrate(
            Self.sine(hz: hz, rmsDBFS: -26, sampleRate: 44100, seconds: 3, phase: 0.3), sampleRate: 44100)

        #expect(abs(result.frequencyHz - hz) < 1, "frequency \(result.frequencyHz)")
        #expect(abs(result.frequencyHz - hz) < 0.1, "interpolation is far better than 1 Hz: \(result.frequencyHz)")
        #expect(abs(result.levelDBFS - -26) < 0.1, "level \(result.levelDBFS)")
        #expect(abs(result.offsetDB - 120) < 0.1)
    }

    @Test("a tone with noise 40 dB below it is accepted, and the SNR found is about 40 dB")
    func toneWithSomeNoise() throws {
        let sampleRate = 48000
        let tone = Self.sine(hz: 1000, rmsDBFS: -26, sampleRate: sampleRate, seconds: 4)
        // Uniform noise in ±a has RMS a/√3; put it at −66 dBFS.
        let noise = TestSignal.noise(amplitude: sqrt(3) * pow(10, -66.0 / 20), count: tone.count, seed: 3)

        let result = try Self.calibrate(Self.mix(tone, noise), sampleRate: sampleRate)

        #expect(abs(result.snrDB - 40) < 1, "snr \(result.snrDB)")
        #expect(abs(result.levelDBFS - -26) < 0.1)
        #expect(abs(result.offsetDB - 120) < 0.1)
    }

    @Test("a stereo FLAC with the tone in both channels reads the tone's level, as the meter pools channels")
    func stereoFLAC() throws {
        let tone = Self.sine(hz: 1000, rmsDBFS: -20, sampleRate: 48000, seconds: 3)
        let flac = try AudioEncoder.encode(
            TestSignal.interleave([tone, tone]), channelCount: 2, sampleRate: 48000,
            format: Int32(SF_FORMAT_FLAC | SF_FORMAT_PCM_16))

        let result = try ToneCalibration.measure(flac, referenceDB: 94)

        #expect(abs(result.levelDBFS - -20) < 0.1)
        #expect(abs(result.offsetDB - 114) < 0.1)
    }

    @Test("mono samples in memory give the same answer as the encoded file")
    func rawSamples() throws {
        let tone = Self.sine(hz: 1000, rmsDBFS: -26, sampleRate: 48000, seconds: 3)

        let result = try ToneCalibration.measure(samples: tone, sampleRate: 48000, referenceDB: 94)

        #expect(abs(result.offsetDB - 120) < 0.01, "float samples, no quantisation: \(result.offsetDB)")
        #expect(abs(result.frequencyHz - 1000) < 0.01)
    }

    /// sox computes its RMS in the time domain, independently of the FFT; a clean tone's RMS is
    /// the tone's level.
    @Test(
        "the level agrees with `sox FILE -n stats` RMS lev dB within 0.05 dB",
        .enabled(if: SoxFile.executable != nil, "sox is not on PATH; install it (make deps: apt-get install sox)"),
        arguments: [(1000.0, 48000), (250.0, 44100), (1003.7, 44100)])
    func agreesWithSox(hz: Double, sampleRate: Int) throws {
        let wav = try AudioEncoder.encode(
            Self.sine(hz: hz, rmsDBFS: -26, sampleRate: sampleRate, seconds: 4), channelCount: 1,
            sampleRate: sampleRate, format: Self.wav24)

        let result = try ToneCalibration.measure(wav, referenceDB: 94)
        let soxRMS = try SoxFile.rmsLevelDB(ofWAV: wav)

        #expect(abs(result.levelDBFS - soxRMS) < 0.05, "tone \(result.levelDBFS), sox \(soxRMS)")
        #expect(abs(soxRMS - -26) < 0.05)
    }

    // MARK: - Refused

    @Test("white noise is refused as noise, with the SNR found")
    func whiteNoise() throws {
        let noise = TestSignal.noise(amplitude: 0.1, count: 48000 * 4, seed: 11)

        let reason = Self.refusal { try Self.calibrate(noise, sampleRate: 48000) }

        guard case .noise(_, let snr) = reason else {
            Issue.record("expected .noise, got \(String(describing: reason))")
            return
        }
        #expect(snr < -20, "one 7-bin band of 24,000 holds ~0.03 % of white noise: \(snr)")
        #expect(reason?.description.hasPrefix("noise:") == true)
        #expect(reason?.description.contains(String(format: "%.1f dB", snr)) == true)
    }

    @Test("a tone only 10 dB above the noise is refused as noise")
    func noisyTone() throws {
        let tone = Self.sine(hz: 1000, rmsDBFS: -26, sampleRate: 48000, seconds: 4)
        let noise = TestSignal.noise(amplitude: sqrt(3) * pow(10, -36.0 / 20), count: tone.count, seed: 5)

        let reason = Self.refusal { try Self.calibrate(Self.mix(tone, noise), sampleRate: 48000) }

        guard case .noise(let hz, let snr) = reason else {
            Issue.record("expected .noise, got \(String(describing: reason))")
            return
        }
        #expect(abs(hz - 1000) < 0.5)
        #expect(abs(snr - 10) < 1, "snr \(snr)")
    }

    @Test("a C major chord (262 + 330 + 392 Hz) is refused as music-like, naming the three tones")
    func chord() throws {
        let notes = [262.0, 330.0, 392.0].map { Self.sine(hz: $0, rmsDBFS: -30, sampleRate: 48000, seconds: 4) }

        let reason = Self.refusal { try Self.calibrate(Self.mix(notes[0], notes[1], notes[2]), sampleRate: 48000) }

        guard case .severalTones(let frequencies, _) = reason else {
            Issue.record("expected .severalTones, got \(String(describing: reason))")
            return
        }
        #expect(frequencies.count == 3)
        #expect(zip(frequencies.sorted(), [262.0, 330.0, 392.0]).allSatisfy { abs($0 - $1) < 0.5 })
        #expect(reason?.description.contains("music-like") == true)
    }

    @Test("a note with harmonics (220 Hz and its overtones at −6, −10, −14 dB) is refused as music-like")
    func harmonics() throws {
        let partials = [(220.0, -20.0), (440, -26), (660, -30), (880, -34)].map {
            Self.sine(hz: $0.0, rmsDBFS: $0.1, sampleRate: 44100, seconds: 3)
        }

        let reason = Self.refusal {
            try Self.calibrate(Self.mix(partials[0], partials[1], partials[2], partials[3]), sampleRate: 44100)
        }

        guard case .severalTones(let frequencies, let levels) = reason else {
            Issue.record("expected .severalTones, got \(String(describing: reason))")
            return
        }
        // 880 Hz at −34 dB holds 2.6 % of the power: above the 1 % that makes a tone.
        #expect(frequencies.count == 4)
        #expect(abs(frequencies[0] - 220) < 0.5 && abs(levels[0] - -20) < 0.1, "strongest first")
    }

    @Test("two tones at similar levels (1 kHz + 1.5 kHz) are refused, naming both frequencies")
    func twoTones() throws {
        let low = Self.sine(hz: 1000, rmsDBFS: -26, sampleRate: 48000, seconds: 4)
        let high = Self.sine(hz: 1500, rmsDBFS: -28, sampleRate: 48000, seconds: 4)

        let reason = Self.refusal { try Self.calibrate(Self.mix(low, high), sampleRate: 48000) }

        guard case .severalTones(let frequencies, let levels) = reason else {
            Issue.record("expected .severalTones, got \(String(describing: reason))")
            return
        }
        #expect(frequencies.count == 2)
        #expect(abs(frequencies[0] - 1000) < 0.5 && abs(frequencies[1] - 1500) < 0.5)
        #expect(abs(levels[0] - -26) < 0.1 && abs(levels[1] - -28) < 0.1)
        let detail = reason?.description ?? ""
        #expect(detail.hasPrefix("two tones:") && detail.contains("1000.0 Hz") && detail.contains("1500.0 Hz"))
    }

    @Test("silence is refused as silence")
    func silence() throws {
        let reason = Self.refusal {
            try Self.calibrate(TestSignal.silence(sampleRate: 48000, seconds: 3), sampleRate: 48000)
        }

        #expect(reason == .silence(levelDBFS: -160))
        #expect(reason?.description.hasPrefix("silence:") == true)
    }

    @Test("a tone at −100 dBFS is below the silence floor")
    func faintTone() throws {
        let reason = Self.refusal {
            try ToneCalibration.measure(
                samples: Self.sine(hz: 1000, rmsDBFS: -100, sampleRate: 48000, seconds: 3), sampleRate: 48000,
                referenceDB: 94)
        }

        guard case .silence(let level) = reason else {
            Issue.record("expected .silence, got \(String(describing: reason))")
            return
        }
        #expect(abs(level - -100) < 0.1)
    }

    @Test("a tone whose level steps up by 3 dB halfway is refused as unstable, with the spread")
    func levelStep() throws {
        let quiet = Self.sine(hz: 1000, rmsDBFS: -26, sampleRate: 48000, seconds: 3)
        let loud = Self.sine(hz: 1000, rmsDBFS: -23, sampleRate: 48000, seconds: 3)

        let reason = Self.refusal { try Self.calibrate(quiet + loud, sampleRate: 48000) }

        guard case .unstableLevel(let hz, let levels, let spread) = reason else {
            Issue.record("expected .unstableLevel, got \(String(describing: reason))")
            return
        }
        #expect(abs(hz - 1000) < 0.5)
        #expect(levels.count == 6)
        #expect(abs(spread - 1.5) < 0.1, "median halfway between −26 and −23: \(spread)")
        #expect(reason?.description.contains("1.50 dB") == true)
    }

    @Test("a tone that stops after 3 of 5 seconds is refused as unstable")
    func toneStops() throws {
        let tone = Self.sine(hz: 1000, rmsDBFS: -26, sampleRate: 48000, seconds: 3)
        let after = TestSignal.noise(amplitude: 1e-4, count: 2 * 48000, seed: 9)

        let reason = Self.refusal { try Self.calibrate(tone + after, sampleRate: 48000) }

        guard case .unstableLevel = reason else {
            Issue.record("expected .unstableLevel, got \(String(describing: reason))")
            return
        }
    }

    @Test("a 1 s recording is refused as too short, with its duration")
    func oneSecond() throws {
        let reason = Self.refusal {
            try Self.calibrate(Self.sine(hz: 1000, rmsDBFS: -26, sampleRate: 48000, seconds: 1), sampleRate: 48000)
        }

        #expect(reason == .tooShort(seconds: 1))
        #expect(reason?.description.contains("1.00 s") == true)
    }

    @Test("bytes libsndfile cannot read are the meter's unreadable error")
    func garbage() {
        let garbage = Data((0..<4096).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) })

        #expect(throws: ToneCalibrationError.audio(.unreadable(libsndfileMessage: "Format not recognised."))) {
            try ToneCalibration.measure(garbage, referenceDB: 94)
        }
    }

    @Test("audio longer than the limit is the meter's too-long error")
    func tooLong() throws {
        let wav = try AudioEncoder.encode(
            TestSignal.silence(sampleRate: 8000, seconds: 3), channelCount: 1, sampleRate: 8000)

        #expect(throws: ToneCalibrationError.audio(.tooLong(durationSeconds: 3, limitSeconds: 2))) {
            try ToneCalibration.measure(wav, referenceDB: 94, maxDuration: .seconds(2))
        }
    }
}

/// `sox FILE -n stats` on a WAV written to a temporary folder of its own, removed afterwards.
enum SoxFile {
    static var executable: URL? { Sox.executable }

    /// The "RMS lev dB" line of sox's stats.
    static func rmsLevelDB(ofWAV wav: Data) throws -> Double {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "hearclear-tone-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("tone.wav")
        try wav.write(to: file)

        let process = Process()
        process.executableURL = executable
        process.arguments = [file.path, "-n", "stats"]
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        let report = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        let line = report.split(separator: "\n").first { $0.hasPrefix("RMS lev dB") }
        guard process.terminationStatus == 0,
            let value = line.flatMap({ $0.dropFirst("RMS lev dB".count).split(separator: " ").first }).flatMap({
                Double($0)
            })
        else { throw Sox.Failure(report: report) }
        return value
    }
}
