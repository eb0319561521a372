import Foundation
import HearClearEngine
import HearClearModel
import LoudnessCore

/// The context of `models.mustache`: every phone model with its crowd fit, reference
/// calibrations, override and the offset in force, the latest fit, and the calibration forms.
struct ModelsPage {
    struct Fit {
        let id: Int64
        let fittedAt: String
        let cells: String
        let observations: String
        let scale: String
        let changes: String
    }

    struct Reference {
        let id: Int64
        let method: String
        let absoluteOffset: String
        let modelOffset: String
        let summary: String?
        let createdAt: String
        let createdBy: String
        let withdrawnAt: String?
        let withdrawAction: String
    }

    struct Override {
        let offset: String
        let note: String?
        let setBy: String
        let setAt: String
    }

    /// A model's offset for one OS version.
    struct OSOffset {
        let os: String
        let offset: String
        let checkins: String
    }

    /// A model's step: since when its offset in force applies, and the one before.
    struct Step {
        let since: String
        let offset: String
        let earlier: String
        let chart: StepChart
    }

    /// A device whose readings stepped. Its id shortened, never whole.
    struct DeviceStep {
        let key: Int64
        let shortID: String
        let model: String
        let step: String
        let offset: String
        let earlier: String
        let since: String
        let detected: String
    }

    struct Row {
        let model: String
        let step: Step?
        let osOffsets: [OSOffset]
        let hasOSOffsets: Bool
        let devices: String
        let fitted: Bool
        let crowdOffset: String
        let crowdBasis: String
        let component: String?
        let anchored: Bool
        let references: [Reference]
        let withdrawn: [Reference]
        let hasWithdrawn: Bool
        let override: Override?
        let inForce: String
        let source: String?
    }

    struct Option {
        let name: String
        let selected: Bool
    }

    let title = "Phone models"
    let chrome: AdminChrome
    let referenceOffset: String
    let fit: Fit?
    let rows: [Row]
    let hasRows: Bool
    let deviceSteps: [DeviceStep]
    let hasDeviceSteps: Bool
    static let deviceStepsShown = 100
    let form: ModelsForm
    let overrideModels: [Option]
    let toneModels: [Option]
    let problem: String?
    let notice: String?
    let toneAction = "/farmer/models/tone"
    let meterAction = "/farmer/models/meter"
    let overrideAction = "/farmer/models/override"
    let removeOverrideAction = "/farmer/models/override/remove"
    let fitAction = "/farmer/models/fit"

    init(
        chrome: AdminChrome, models: [ModelCalibration], histories: [String: AdminModelOffsetHistory] = [:],
        deviceSteps: [AdminDeviceStep] = [], fit: StoredCalibrationFit?, referenceOffsetDB: Double,
        form: ModelsForm, problem: String?, notice: String?
    ) {
        self.chrome = chrome
        referenceOffset = AdminFormat.offset(referenceOffsetDB)
        self.fit = fit.map { fit in
            Fit(
                id: fit.id, fittedAt: AdminFormat.time(fit.fittedAt), cells: Self.plural(fit.cells, "cell"),
                observations: Self.plural(fit.observations, "observation"), scale: AdminFormat.decibels(fit.scaleDB),
                changes:
                    "\(Self.plural(fit.changedModels, "model")) and \(Self.plural(fit.changedDevices, "device")) changed offset; \(Self.plural(fit.queuedVenues, "venue")) queued to be judged again"
            )
        }
        rows = models.map { Self.row($0, history: histories[$0.model], referenceOffsetDB: referenceOffsetDB) }
        self.deviceSteps = deviceSteps.map { step in
            DeviceStep(
                key: step.key, shortID: DeviceIdentity.shortened(step.clientID), model: step.model ?? "unknown model",
                step: AdminFormat.signed(step.stepDB) + " dB", offset: AdminFormat.offset(step.offsetDB),
                earlier: AdminFormat.offset(step.earlierOffsetDB), since: AdminFormat.minute(step.since),
                detected: AdminFormat.minute(step.detectedAt))
        }
        hasDeviceSteps = !deviceSteps.isEmpty
        hasRows = !models.isEmpty
        self.form = form
        overrideModels = models.map { Option(name: $0.model, selected: $0.model == form.overrideModel) }
        toneModels = models.map { Option(name: $0.model, selected: $0.model == form.toneModel) }
        self.problem = problem
        self.notice = notice
    }

    static func row(_ model: ModelCalibration, history: AdminModelOffsetHistory? = nil, referenceOffsetDB: Double)
        -> Row
    {
        let crowd = model.crowd
        let fitted = crowd?.status == .fitted
        let crowdOffset: String
        let crowdBasis: String
        switch crowd {
        case nil:
            crowdOffset = "not in the latest fit"
            crowdBasis = "no check-ins shared a cell with another model"
        case let crowd? where crowd.status == .fitted:
            crowdOffset =
                AdminFormat.offset(crowd.offsetDB)
                + (crowd.standardErrorDB.map { " ± " + String(format: "%.2f", $0) } ?? "")
            crowdBasis =
                "\(plural(crowd.checkins, "co-located check-in")), \(plural(crowd.devices, "device"))"
        case let crowd?:
            crowdOffset = "too little evidence"
            crowdBasis =
                "\(plural(crowd.checkins, "co-located check-in")) of the \(CrowdCalibration().minimumModelCheckins) needed"
        }
        let references = model.references.map { reference($0, referenceOffsetDB: referenceOffsetDB) }
        let withdrawn = references.filter { $0.withdrawnAt != nil }
        let osOffsets = (history?.osOffsets ?? []).map {
            OSOffset(os: $0.os, offset: AdminFormat.offset($0.offsetDB), checkins: plural($0.checkins, "check-in"))
        }
        let step = history.flatMap { history in
            history.since.map { since in
                Step(
                    since: AdminFormat.minute(since), offset: AdminFormat.offset(history.offsetDB),
                    earlier: AdminFormat.offset(history.earlierOffsetDB),
                    chart: StepChart(earlierDB: history.earlierOffsetDB, laterDB: history.offsetDB))
            }
        }
        return Row(
            model: model.model, step: step, osOffsets: osOffsets, hasOSOffsets: !osOffsets.isEmpty,
            devices: AdminFormat.count(model.devices), fitted: fitted, crowdOffset: crowdOffset,
            crowdBasis: crowdBasis, component: crowd?.component, anchored: crowd?.anchored ?? false,
            references: references.filter { $0.withdrawnAt == nil }, withdrawn: withdrawn,
            hasWithdrawn: !withdrawn.isEmpty,
            override: model.override.map {
                Override(
                    offset: AdminFormat.offset($0.offsetDB), note: $0.note, setBy: $0.setBy,
                    setAt: AdminFormat.minute($0.setAt))
            },
            inForce: AdminFormat.offset(model.inForce?.offsetDB ?? 0), source: model.inForce?.source.rawValue
        )
    }

    static func reference(_ reference: ReferenceCalibration, referenceOffsetDB: Double) -> Reference {
        Reference(
            id: reference.id, method: reference.method.rawValue,
            absoluteOffset: AdminFormat.offset(reference.absoluteOffsetDB),
            modelOffset: AdminFormat.offset(reference.absoluteOffsetDB - referenceOffsetDB),
            summary: ReferenceDetail(method: reference.method, json: reference.detail)?.summary,
            createdAt: AdminFormat.minute(reference.createdAt), createdBy: reference.createdBy,
            withdrawnAt: reference.withdrawnAt.map { AdminFormat.minute($0) },
            withdrawAction: "/farmer/models/references/\(reference.id)/withdraw"
        )
    }

    /// The sentence after a successful act; `reference` is the calibration just recorded.
    static func notice(for code: String, reference: ReferenceCalibration?) -> String? {
        switch code {
        case "override": return "Override set. The model's venues are being judged again with it."
        case "removed": return "Override undone. The model's venues are being judged again without it."
        case "withdrawn":
            return "Reference calibration withdrawn. The model's venues are being judged again without it."
        case "fitted": return "Fitted. Venues whose offsets moved are being judged again."
        case "busy": return "Another instance is fitting now; its fit shows here in a moment."
        case "unchanged": return "Nothing to change: it was already so."
        case "tone", "meter":
            guard let reference else { return nil }
            let detail = ReferenceDetail(method: reference.method, json: reference.detail)?.summary
            return "\(reference.method == .tone ? "Tone" : "Meter") calibration #\(reference.id) recorded for "
                + "\(reference.model): absolute offset \(AdminFormat.offset(reference.absoluteOffsetDB))"
                + (detail.map { " (\($0))" } ?? "") + ". The model's venues are being judged again."
        default: return nil
        }
    }

    static func plural(_ count: Int, _ noun: String) -> String {
        "\(AdminFormat.count(count)) \(noun)\(count == 1 ? "" : "s")"
    }
}

/// A model's step as a small inline SVG: the earlier offset, then the one since, on one scale.
struct StepChart {
    static let width = 120.0
    static let height = 36.0
    let width = Self.width
    let height = Self.height
    let points: String
    let title: String

    init(earlierDB: Double, laterDB: Double) {
        let low = min(earlierDB, laterDB) - 1
        let high = max(earlierDB, laterDB) + 1
        func y(_ value: Double) -> String {
            String(format: "%.1f", 4 + (high - value) / (high - low) * (Self.height - 8))
        }
        let middle = String(format: "%.1f", Self.width / 2)
        points = "4,\(y(earlierDB)) \(middle),\(y(earlierDB)) \(middle),\(y(laterDB)) \(Self.width - 4),\(y(laterDB))"
        title = "Offset \(AdminFormat.offset(earlierDB)) before the step, \(AdminFormat.offset(laterDB)) since"
    }
}

/// What a reference calibration measured, as stored in its `detail` JSON: written by the admin
/// when it records one, read back to say on the page what the offset rests on.
enum ReferenceDetail {
    struct Tone: Codable {
        var frequencyHz: Double
        var levelDbfs: Double
        var snrDb: Double
        var seconds: Double
        var referenceDb: Double
    }

    struct Meter: Codable {
        var checkinId: String
        var seconds: Int
        var spreadDb: Double
    }

    case tone(Tone)
    case meter(Meter)

    init?(method: ReferenceCalibration.Method, json: String) {
        let data = Data(json.utf8)
        switch method {
        case .tone:
            guard let tone = try? JSONDecoder().decode(Tone.self, from: data) else { return nil }
            self = .tone(tone)
        case .meter:
            guard let meter = try? JSONDecoder().decode(Meter.self, from: data) else { return nil }
            self = .meter(meter)
        }
    }

    /// The JSON text stored.
    static func json(_ detail: some Encodable) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return String(decoding: try encoder.encode(detail), as: UTF8.self)
    }

    /// `1000.0 Hz at −26.00 dBFS, SNR 70.3 dB, 3.0 s, calibrator 94.0 dB SPL`.
    var summary: String {
        switch self {
        case .tone(let tone):
            return String(format: "%.1f Hz at ", tone.frequencyHz)
                + AdminFormat.offset(tone.levelDbfs).replacingOccurrences(of: " dB", with: " dBFS")
                + String(
                    format: ", SNR %.1f dB, %.1f s, calibrator %.1f dB SPL", tone.snrDb, tone.seconds, tone.referenceDb)
        case .meter(let meter):
            let checkin = UUID(uuidString: meter.checkinId).map(AdminFormat.shortCheckinID) ?? "?"
            return "check-in \(checkin), \(ModelsPage.plural(meter.seconds, "second")) beside the meter, spread "
                + AdminFormat.decibels(meter.spreadDb)
        }
    }
}
