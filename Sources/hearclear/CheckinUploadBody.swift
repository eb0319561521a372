import Foundation
import HearClearCLI
import HearClearClient
import HearClearEngine

/// A v2 check-in (docs/ARCHITECTURE.md, "API v2 rules") made from metered samples:
/// `average` = RMS, `peak`, in dBFS, each second's time as the report wrote it; with
/// `--with-spectra`, `average` = the A-weighted level (the server takes `average` as LAeq beside
/// `lceq`), `lceq` and the third-octave `bands`.
enum CheckinUploadBody {
    static func make(id: String, report: MeterReport, options: SubmitOptions) throws
        -> Components.Schemas.CheckinInput
    {
        let samples = try report.samples.map { sample in
            guard let t = sample.t, let time = RFC3339.parse(t) else {
                throw CommandFailure("the sample at \(sample.offset) s has no time")
            }
            guard options.withSpectra else {
                return Components.Schemas.Sample(t: time.date, average: sample.average, peak: sample.peak)
            }
            return Components.Schemas.Sample(
                t: time.date, average: sample.aWeighted, peak: sample.peak, lceq: sample.lceq,
                bands: .init(additionalProperties: sample.bands))
        }
        return Components.Schemas.CheckinInput(
            id: id,
            venue: .init(
                id: options.venue ?? "", name: options.venueName, latitude: options.latitude,
                longitude: options.longitude, timezone: options.timezone),
            device: .init(id: options.device ?? "", model: options.model),
            unit: .init(rawValue: report.unit), samples: samples)
    }

    /// The zone the samples' times are written in: the recording's start's offset, so the times go
    /// out as the report wrote them (the server takes the local hour from them when the venue has
    /// no time zone).
    static func timeZone(of report: MeterReport) -> TimeZone {
        let offset = report.samples.first?.t.flatMap(RFC3339.parse)?.offsetMinutes ?? 0
        return TimeZone(secondsFromGMT: offset * 60) ?? TimeZone(secondsFromGMT: 0)!
    }
}
