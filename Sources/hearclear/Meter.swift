import ArgumentParser
import AudioClassification
import AudioMetering
import Foundation
import HearClearCLI
import HearClearEngine
import Logging

struct Meter: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Turn an audio file into per-second levels, like a phone's check-in, and optionally submit it.",
        discussion: """
            The file is decoded with libsndfile (WAV of any bit depth, FLAC, Ogg Vorbis and Opus, MP3, \
            AIFF and whatever else the installed libsndfile reads; any sample rate and channel count). \
            For every second (frames k·rate up to (k+1)·rate) it reports the RMS level (mean square pooled \
            over all channels, as sox's "RMS lev dB": a full-scale sine reads -3.01), the peak (largest \
            absolute sample), the IEC 61672 A- and C-weighted RMS levels and (in --json) the unweighted \
            third-octave levels from 50 Hz to 10 kHz (FFT approximations, not IEC 61260 filters; those \
            above Nyquist left out), all in dBFS; digital silence reads -160. A trailing part shorter than a second \
            is metered as one more sample when it lasts at least 0.5 s and dropped otherwise; the output \
            says which. Windows of about 10 s are then labelled babble, music, bass-heavy music, steady \
            noise, quiet or uncertain by the AudioSet model (YAMNet; `make deps` fetches it into \
            models/yamnet) from its classes' scores, each with the reason (and in --json the model's top \
            classes and the features behind it: LC - LA, low-frequency excess, spectral flatness and flux, \
            low-energy frames, envelope modulation). Without the model, or with --sound-model off, the \
            spectra rules label them (tuned on synthetic audio, far weaker on real rooms; the output names \
            the classifier).

            Without options it prints a table. --json prints the samples as v2 JSON, the same document \
            as POST /api/v2/meter returns, each sample with its time "t" from --start. --submit posts them \
            as a v2 check-in (POST /api/v2/checkins, a fresh UUID id, "average" = RMS and "peak") and \
            prints the server's answer and, once it is made, its judgement. A check-in needs 10 to 3600 \
            seconds, none older than 14 days. The file is only read, a buffer at a time, so memory does not \
            grow with it whatever its format (what grows is the output: a sample a second); at most 24 hours \
            (86,400 s) of audio, any size. (POST /api/v2/meter takes at most 4 hours, 14,400 s: up to 4 GiB \
            of WAV, AIFF, AU, W64, RF64 or FLAC, metered as they arrive, and 50 MiB of other formats.) \
            Nothing is written anywhere.

            Examples:
              hearclear meter pub.flac
              hearclear meter pub.wav --json --start 2026-11-21T21:03:04+11:00
              hearclear meter pub.wav --start 2026-11-21T21:03:04+11:00 \\
                --submit --url http://127.0.0.1:8080 \\
                --venue 4b0588c4f964a520a9d422e3 --device my-zoom-h5 --model "Zoom H5"
            """
    )

    /// Far longer than a check-in may be, so that any recording can still be looked at.
    static let maxDuration = Duration.seconds(24 * 3600)

    @Argument(help: "The audio file to meter.", completion: .file())
    var file: String

    @Flag(help: "Print the samples as v2 JSON instead of a table (with --submit: the server's JSON answer).")
    var json = false

    @Option(
        help:
            "When the recording started, RFC 3339 with an offset (2026-11-21T21:03:04+11:00). Default: now minus its length."
    )
    var start: String?

    @Option(
        help: ArgumentHelp(
            "Folder of the AudioSet model that labels the sound character, or 'off' for the spectra rules.",
            discussion: "Default: models/yamnet in the working directory if it is there (make deps fetches it)."),
        completion: .directory)
    var soundModel: String?

    @OptionGroup(title: "Submitting as a check-in")
    var submission: SubmitOptions

    func validate() throws {
        if let start, RFC3339.parse(start) == nil {
            throw ValidationError("--start must be an RFC 3339 time with an offset, e.g. 2026-11-21T21:03:04+11:00")
        }
        try submission.validate()
    }

    func run() async throws {
        let metered = try measure()
        let report = MeterReport(metered, start: startTime(durationSeconds: metered.format.durationSeconds))
        if submission.submit {
            try await CheckinUpload(options: submission, printJSON: json).submit(report)
        } else if json {
            print(try MeterJSON.encode(report))
        } else {
            print(MeterTable(report: report, fileName: file, startGiven: start != nil).render(), terminator: "")
        }
    }

    private func measure() throws -> MeteredAudio {
        // Read a buffer at a time by libsndfile itself, so that memory does not grow with the file.
        guard FileManager.default.isReadableFile(atPath: file) else {
            throw CommandFailure("cannot read \(file): no such file, or it is not readable")
        }
        let model: AudioSetModel?
        var logger = Logger(label: "hearclear.meter")
        logger.logLevel = .warning
        do {
            model = try SoundModelLoading.load(soundModel, resources: ".", logger: logger)
        } catch {
            throw CommandFailure("\(error)")
        }
        do throws(AudioMeteringError) {
            return try AudioMeter.measure(fileAt: file, maxDuration: Self.maxDuration, model: model)
        } catch {
            throw CommandFailure("cannot meter \(file): \(Self.describe(error))")
        }
    }

    /// `--start`, or now minus the recording's length (whole seconds) at this machine's offset.
    private func startTime(durationSeconds: Double) -> RFC3339.Timestamp {
        if let start, let timestamp = RFC3339.parse(start) { return timestamp }
        let seconds = (Date().timeIntervalSince1970 - durationSeconds).rounded(.down)
        let offset = TimeZone.current.secondsFromGMT(for: Date(timeIntervalSince1970: seconds)) / 60
        return RFC3339.timestamp(secondsSince1970: seconds, offsetMinutes: offset)
    }

    static func describe(_ error: AudioMeteringError) -> String {
        switch error {
        case .unreadable(let message): "libsndfile cannot read it: \(message)"
        case .decodingFailed(let message): "libsndfile failed while decoding it: \(message)"
        case .tooLong(let seconds, let limit):
            "it lasts at least \(Int(seconds)) s; at most \(Int(limit)) s can be metered"
        case .tooLarge(let bytes, let limit, _):
            "it is at least \(bytes) bytes; at most \(limit) bytes can be metered"
        }
    }
}
