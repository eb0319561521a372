import Foundation
import HearClearEngine
import HearClearHTTP
import HearClearModel
import LoudnessCore

/// Turns a v2 check-in body into a `CheckinSubmission`, enforcing the structural rules of
/// docs/ARCHITECTURE.md, "API v2 rules". Odd but possible values (a peak under its average, −160 for silence) pass:
/// cleaning judges those later.
struct CheckinValidator {
    static let sampleCount = 10...3600
    static let maxFuture: TimeInterval = CheckinWindow.maxFutureSeconds
    static let maxAge: TimeInterval = CheckinWindow.maxAgeSeconds
    static let maxSpan: TimeInterval = 24 * 3_600
    static let dbfsRange = -200.0...20.0
    static let amplitudeRange = 0.0...10.0
    static let timeRule = "must be an RFC 3339 time with an offset, such as 2026-11-21T21:03:04+11:00"

    /// The instants a sample's `t` (and a report's `at`) may be at, from `now`: a phone's clock
    /// may be a little ahead (``maxFuture``), and a check-in or a report is about a recent visit
    /// (``maxAge``).
    struct RecentWindow {
        let latest: TimeInterval
        let earliest: TimeInterval

        init(now: Date) {
            latest = now.timeIntervalSince1970 + CheckinValidator.maxFuture
            earliest = now.timeIntervalSince1970 - CheckinValidator.maxAge
        }

        /// Why a time `seconds` after 1970 is outside the window; `nil` inside it.
        func problem(_ seconds: TimeInterval) -> String? {
            if seconds > latest { return "is more than 15 minutes in the future" }
            if seconds < earliest { return "is more than 14 days old" }
            return nil
        }
    }

    enum Unit: String {
        case dbfs, amplitude
    }

    var now: Date

    func validate(_ body: CheckinRequest, source: CheckinSource = .v2) throws -> CheckinSubmission {
        var rules = FieldRules()
        let id = Self.id(body.id, rules: &rules)
        let venue = Self.venue(body.venue, rules: &rules)
        let (deviceID, deviceModel, deviceOS) = Self.device(body.device, rules: &rules)
        let location = Self.location(body.location, rules: &rules)
        if let capture = body.capture { Self.capture(capture, rules: &rules) }

        let unit = Self.unit(body.unit, rules: &rules)
        let series = samples(body.samples, unit: unit, rules: &rules)
        let classes = CheckinClassesReader.read(
            body.classes, sampleCount: series?.offsets.count ?? Self.sampleCount.upperBound,
            spanSeconds: series.map { Int($0.offsets.last ?? 0) + 1 }, rules: &rules)
        guard rules.errors.isEmpty, let id, let venue, let deviceID, let series else {
            throw Problem.validation(rules.errors)
        }
        return CheckinSubmission(
            id: id, venue: venue, deviceID: deviceID, deviceModel: deviceModel, deviceOS: deviceOS, location: location,
            source: source,
            startedAt: series.start, offsetsSeconds: series.offsets, utcOffsetsMinutes: series.utcOffsets,
            averageDBFS: series.average, peakDBFS: series.peak, lceqDdB: series.lceq, bandIndexes: series.bandIndexes,
            bandsDdB: series.bands, classes: classes
        )
    }

    /// `/id`: a UUID.
    static func id(_ raw: String?, rules: inout FieldRules) -> UUID? {
        guard let raw else {
            rules.fail("/id", "is required")
            return nil
        }
        let id = UUID(uuidString: raw)
        if id == nil { rules.fail("/id", "must be a UUID such as 7d6c2d2e-3f0b-4c55-9a0e-0a4c8f7e1b21") }
        return id
    }

    /// `/venue`: its id, and the details given (checked; whether all three are needed depends on
    /// whether the venue exists, which the store decides: IngestError.unknownVenue).
    static func venue(_ v: CheckinRequest.Venue?, rules: inout FieldRules) -> CheckinSubmission.VenueReference? {
        guard let v else {
            rules.fail("/venue", "is required")
            return nil
        }
        guard let externalID = v.id else {
            rules.fail("/venue/id", "is required")
            return nil
        }
        guard FieldRules.isValidVenueID(externalID) else {
            rules.fail("/venue/id", FieldRules.venueIDRule)
            return nil
        }
        let details = rules.venueDetails(
            name: v.name, latitude: v.latitude, longitude: v.longitude, timezone: v.timezone,
            address: v.address, category: v.category, at: "/venue", required: false
        )
        return .init(externalID: externalID, details: details)
    }

    /// `/device`: its id, model and operating system.
    static func device(_ d: CheckinRequest.Device?, rules: inout FieldRules) -> (
        id: String?, model: String?, os: String?
    ) {
        guard let d else {
            rules.fail("/device", "is required")
            return (nil, nil, nil)
        }
        let id = rules.text(d.id, "/device/id", required: true, maxLength: 128)
        let model = rules.text(d.model, "/device/model", required: false, maxLength: 64)
        var os: String?
        if let raw = d.os { os = Self.operatingSystem(raw, rules: &rules) }
        return (id, model, os)
    }

    /// `/location`, optional: where the phone was, and how sure it was.
    static func location(_ l: CheckinRequest.Location?, rules: inout FieldRules) -> CheckinSubmission.Location? {
        guard let l else { return nil }
        let latitude = rules.number(l.latitude, "/location/latitude", required: true, in: -90...90)
        let longitude = rules.number(l.longitude, "/location/longitude", required: true, in: -180...180)
        let accuracy = rules.number(l.accuracy, "/location/accuracy", required: false, in: 0...1_000_000)
        guard let latitude, let longitude else { return nil }
        return .init(latitude: latitude, longitude: longitude, accuracyMetres: accuracy)
    }

    /// `/unit`, optional: dBFS (the default) or amplitude.
    static func unit(_ raw: String?, rules: inout FieldRules) -> Unit {
        guard let raw else { return .dbfs }
        guard let unit = Unit(rawValue: raw) else {
            rules.fail("/unit", "must be \"dbfs\" or \"amplitude\"")
            return .dbfs
        }
        return unit
    }

    /// `device.os` as stored, `"name version"`; the name a letter then letters, digits, spaces or
    /// `. _ -` (1–32), the version a letter or digit then letters, digits or `. _ -` (1–32), each
    /// error naming its field.
    static func operatingSystem(_ os: CheckinRequest.OperatingSystem, rules: inout FieldRules) -> String? {
        let name = rules.text(os.name, "/device/os/name", required: true, maxLength: 32)
        let version = rules.text(os.version, "/device/os/version", required: true, maxLength: 32)
        var valid = true
        if let name, !Self.matches(name, first: Self.letters, rest: Self.letters + Self.digits + " ._-") {
            rules.fail("/device/os/name", "must be a letter then letters, digits, spaces or . _ - (e.g. \"iOS\")")
            valid = false
        }
        if let version,
            !Self.matches(version, first: Self.letters + Self.digits, rest: Self.letters + Self.digits + "._-")
        {
            rules.fail(
                "/device/os/version",
                "must be letters, digits or . _ - (e.g. \"18.1\"), starting with a letter or digit")
            valid = false
        }
        guard valid, let name, let version else { return nil }
        return "\(name) \(version)"
    }

    /// A browser's audio processing (docs/ARCHITECTURE.md, "Measure here"): a check-in whose
    /// audio went through automatic gain control, noise suppression or echo cancellation is
    /// refused, each one left on named: its levels say what the processing made of the room, not
    /// how loud the room was (gain control rescales every second; the other two take out steady
    /// noise and anything they judge an echo). `false` or `null` (not reported) pass.
    static func capture(_ capture: CheckinRequest.Capture, rules: inout FieldRules) {
        let processing: [(Bool?, String, String)] = [
            (capture.autoGainControl, "autoGainControl", "automatic gain control"),
            (capture.noiseSuppression, "noiseSuppression", "noise suppression"),
            (capture.echoCancellation, "echoCancellation", "echo cancellation"),
        ]
        for (on, field, words) in processing where on == true {
            rules.fail(
                "/capture/\(field)",
                "must be false: levels measured through the browser's \(words) do not say how loud the place was")
        }
    }

    private static let letters = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
    private static let digits = "0123456789"

    private static func matches(_ text: String, first: String, rest: String) -> Bool {
        guard let head = text.first, first.contains(head) else { return false }
        return text.dropFirst().allSatisfy { rest.contains($0) }
    }

    struct Series {
        var start: Date
        var offsets: [Int32]
        var utcOffsets: [Int16]
        var average: [Float]
        var peak: [Float]
        /// LCeq and bands, 0.1 dB (``CheckinSpectraReader``); nil for none.
        var lceq: [Int16]?
        var bandIndexes: [Int16]?
        var bands: [Int16]?
    }

    /// The samples' times as read so far: each must be in the recent window, later than the
    /// previous one, in a second of its own and within 24 hours of the first.
    struct SampleClock {
        let window: RecentWindow
        var first: Double?
        var previous: Double?
        var previousOffset: Int32 = -1

        /// Reads a sample's `t` into `series`' offsets (seconds after the first) and UTC offsets.
        mutating func read(_ t: String?, pointer: String, into series: inout Series, rules: inout FieldRules) {
            guard let text = t else {
                rules.fail(pointer + "/t", "is required")
                return
            }
            guard let time = RFC3339.parse(text) else {
                rules.fail(pointer + "/t", CheckinValidator.timeRule)
                return
            }
            let seconds = time.secondsSince1970
            if let problem = window.problem(seconds) {
                rules.fail(pointer + "/t", problem)
            } else if let previous, seconds <= previous {
                rules.fail(pointer + "/t", "must be later than the previous sample's time")
            } else {
                let start = first ?? seconds
                first = start
                let offset = Int32((seconds - start).rounded())
                if seconds - start > CheckinValidator.maxSpan {
                    rules.fail(pointer + "/t", "is more than 24 hours after the first sample")
                } else if offset == previousOffset {
                    rules.fail(pointer + "/t", "falls in the same second as the previous sample")
                }
                series.offsets.append(offset)
                series.utcOffsets.append(Int16(time.offsetMinutes))
                previousOffset = offset
            }
            previous = seconds
        }
    }

    private func samples(_ samples: [CheckinRequest.Sample]?, unit: Unit, rules: inout FieldRules) -> Series? {
        guard let samples else {
            rules.fail("/samples", "is required")
            return nil
        }
        guard Self.sampleCount.contains(samples.count) else {
            rules.fail("/samples", "must hold from 10 to 3600 samples (one a second), not \(samples.count)")
            return nil
        }
        let range = unit == .dbfs ? Self.dbfsRange : Self.amplitudeRange
        let rangeText = unit == .dbfs ? "from -200 to 20 dBFS" : "an amplitude from 0 to 10"
        var series = Series(start: now, offsets: [], utcOffsets: [], average: [], peak: [])
        series.offsets.reserveCapacity(samples.count)
        series.average.reserveCapacity(samples.count)
        series.peak.reserveCapacity(samples.count)
        var spectra = CheckinSpectraReader(sampleCount: samples.count)
        var clock = SampleClock(window: RecentWindow(now: now))
        for (index, sample) in samples.enumerated() where !rules.isFull {
            let pointer = "/samples/\(index)"
            clock.read(sample.t, pointer: pointer, into: &series, rules: &rules)
            for (value, name) in [(sample.average, "average"), (sample.peak, "peak")] {
                guard let value else {
                    rules.fail("\(pointer)/\(name)", "is required")
                    continue
                }
                guard range.contains(value) else {
                    rules.fail("\(pointer)/\(name)", "must be \(rangeText)")
                    continue
                }
                let dbfs = unit == .dbfs ? Float(value) : Float(Level.dBFS(fromAmplitude: value))
                if name == "average" { series.average.append(dbfs) } else { series.peak.append(dbfs) }
            }
            spectra.read(sample, pointer: pointer, rules: &rules)
        }
        guard rules.errors.isEmpty, let first = clock.first else { return nil }
        series.start = Date(timeIntervalSince1970: first)
        if Set(series.utcOffsets).count == 1 { series.utcOffsets = [series.utcOffsets[0]] }
        (series.lceq, series.bandIndexes, series.bands) = spectra.result
        return series
    }
}
