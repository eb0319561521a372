import AudioMetering
import Foundation

/// The `/farmer/models` forms as typed (shown again beside a problem, so that nothing typed is
/// lost) and what they ask for once validated. Every rule gives one sentence; nothing is changed
/// until a form is valid.
struct ModelsForm {
    struct Override {
        let model: String
        let offsetDB: Double
        let note: String?
    }

    struct Tone {
        let model: String
        let referenceDB: Double
        let recording: Data
    }

    struct Meter {
        let checkinID: UUID
        let csv: String
    }

    /// A model's offset is a few dB; ±60 dB only keeps a typo from silencing or deafening it.
    static let offsetRangeDB: ClosedRange<Double> = -60...60
    static let maximumNoteCharacters = 200
    /// A day of one-second rows is about 3 MiB; more is not a meter's log of one check-in.
    static let maximumLogBytes = 8 << 20
    /// What the form offers first: the commonest calibrator level.
    static let defaultReferenceDB = "94"

    var overrideModel = ""
    var overrideOffset = ""
    var overrideNote = ""
    var toneModel = ""
    var toneReference = Self.defaultReferenceDB
    var meterCheckin = ""

    init() {}

    init(override fields: FormFields) {
        overrideModel = Self.trimmed(fields["model"])
        overrideOffset = Self.trimmed(fields["offsetDb"])
        overrideNote = Self.trimmed(fields["note"])
    }

    init(tone fields: FormFields) {
        toneModel = Self.trimmed(fields["model"])
        toneReference = Self.trimmed(fields["referenceDb"])
    }

    init(meter fields: FormFields) {
        meterCheckin = Self.trimmed(fields["checkin"])
    }

    func override(models: Set<String>) -> Result<Override, ModelsFormError> {
        Result { () throws(ModelsFormError) in
            let model = try Self.model(overrideModel, models: models)
            guard let offset = Self.number(overrideOffset), Self.offsetRangeDB.contains(offset) else {
                throw ModelsFormError(
                    overrideOffset.isEmpty
                        ? "Give the override’s offset in dB, from −60 to 60."
                        : "“\(overrideOffset.prefix(40))” is not an offset from −60 to 60 dB.")
            }
            guard overrideNote.count <= Self.maximumNoteCharacters else {
                throw ModelsFormError("The note has \(overrideNote.count) characters; at most 200.")
            }
            return Override(
                model: model, offsetDB: (offset * 100).rounded() / 100, note: overrideNote.isEmpty ? nil : overrideNote)
        }
    }

    func tone(models: Set<String>, upload: MultipartForm?) -> Result<Tone, ModelsFormError> {
        Result { () throws(ModelsFormError) in
            let model = try Self.model(toneModel, models: models)
            let range = ToneCalibration.referenceRangeDB
            guard let reference = Self.number(toneReference), range.contains(reference) else {
                throw ModelsFormError(
                    "“\(toneReference.prefix(40))” is not a calibrator level from \(Int(range.lowerBound)) to \(Int(range.upperBound)) dB SPL."
                )
            }
            guard let recording = upload?["recording"], !recording.body.isEmpty else {
                throw ModelsFormError("Choose the recording of the calibrator to upload.")
            }
            return Tone(model: model, referenceDB: reference, recording: recording.body)
        }
    }

    func meter(upload: MultipartForm?) -> Result<Meter, ModelsFormError> {
        Result { () throws(ModelsFormError) in
            guard let id = UUID(uuidString: meterCheckin) else {
                throw ModelsFormError(
                    meterCheckin.isEmpty
                        ? "Give the id of the check-in recorded beside the meter."
                        : "“\(meterCheckin.prefix(40))” is not a check-in id (a UUID).")
            }
            guard let log = upload?["log"], !log.body.isEmpty else {
                throw ModelsFormError("Choose the meter’s CSV log to upload.")
            }
            guard log.body.count <= Self.maximumLogBytes else {
                throw ModelsFormError(
                    "The meter’s log is \(AdminFormat.count(log.body.count)) bytes; at most 8 MiB (a day of seconds is about 3 MiB)."
                )
            }
            return Meter(checkinID: id, csv: log.text)
        }
    }

    /// A model the page lists: an override or a calibration of a misspelt model would apply to
    /// no phone and hide the mistake.
    private static func model(_ text: String, models: Set<String>) throws(ModelsFormError) -> String {
        guard !text.isEmpty else { throw ModelsFormError("Choose a phone model.") }
        guard models.contains(text) else {
            throw ModelsFormError("There is no phone model “\(text.prefix(100))”; choose one from the list.")
        }
        return text
    }

    /// A finite number; a decimal comma is read as a point.
    private static func number(_ text: String) -> Double? {
        Double(text.replacingOccurrences(of: ",", with: ".").replacingOccurrences(of: "−", with: "-"))
            .flatMap { $0.isFinite ? $0 : nil }
    }

    private static func trimmed(_ text: String?) -> String {
        (text ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
    }
}

/// Why a form was not accepted: one sentence for the admin.
struct ModelsFormError: Error {
    let message: String

    init(_ message: String) {
        self.message = message
    }
}
