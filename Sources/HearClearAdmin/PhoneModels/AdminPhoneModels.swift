import AudioMetering
import Foundation
import HTTPTypes
import HearClearEngine
import HearClearHTTP
import HearClearModel
import Hummingbird
import NIOPosix

/// `/farmer/models`: every phone model's offset (the crowd's fit, reference calibrations, an
/// admin's override, and which is in force), and the admin's acts on them: an override and its
/// undoing, a tone or meter calibration from an upload, withdrawing a calibration, fitting now.
/// Each act goes through the ``Calibrator``, which refits at once and queues the venues whose
/// offsets moved, and is written to the audit log with the model as its subject.
struct AdminPhoneModels: AdminPageRoutes {
    let calibrator: Calibrator
    let trust: AdminTrustReads
    let audit: AdminAudit
    let renderer: AdminRenderer
    let referenceOffsetDB: Double

    func addRoutes(to group: RouterGroup<AdminRequestContext>) {
        group.get("models") { request, context in
            let done = request.uri.queryParameters["done"].map(String.init)
            let referenceID = request.uri.queryParameters["reference"].flatMap { Int64(String($0)) }
            return try await page(context, notice: done, reference: referenceID)
        }
        group.post("models/override") { _, context in try await setOverride(context) }
        group.post("models/override/remove") { _, context in try await removeOverride(context) }
        group.post("models/tone") { _, context in try await toneCalibration(context) }
        group.post("models/meter") { _, context in try await meterCalibration(context) }
        group.post("models/references/:id/withdraw") { _, context in try await withdraw(context) }
        group.post("models/fit") { _, context in try await fitNow(context) }
    }

    /// The page; with a `problem`, the forms as typed and the status of the refusal.
    private func page(
        _ context: AdminRequestContext, form: ModelsForm = ModelsForm(), problem: String? = nil,
        notice code: String? = nil, reference referenceID: Int64? = nil, status: HTTPResponse.Status = .ok,
        models known: [ModelCalibration]? = nil
    ) async throws -> Response {
        let session = try context.requireSession()
        let models: [ModelCalibration]
        if let known { models = known } else { models = try await calibrator.models() }
        let reference = referenceID.flatMap { id in models.lazy.flatMap(\.references).first { $0.id == id } }
        async let histories = trust.modelOffsetHistories()
        async let steps = trust.deviceSteps(limit: ModelsPage.deviceStepsShown)
        let page = ModelsPage(
            chrome: AdminChrome(session, section: .models), models: models, histories: try await histories,
            deviceSteps: try await steps,
            fit: try await calibrator.latestFit(), referenceOffsetDB: referenceOffsetDB, form: form,
            problem: problem, notice: code.flatMap { ModelsPage.notice(for: $0, reference: reference) }
        )
        return renderer.page("models", page, status: status)
    }

    private func refused(
        _ context: AdminRequestContext, _ form: ModelsForm, _ message: String, models: [ModelCalibration]? = nil,
        status: HTTPResponse.Status = .unprocessableContent
    ) async throws -> Response {
        try await page(context, form: form, problem: message, status: status, models: models)
    }

    private func knownModels() async throws -> ([ModelCalibration], Set<String>) {
        let models = try await calibrator.models()
        return (models, Set(models.map(\.model)))
    }

    // MARK: - Override

    private func setOverride(_ context: AdminRequestContext) async throws -> Response {
        let session = try context.requireSession()
        let form = ModelsForm(override: context.form)
        let (models, names) = try await knownModels()
        switch form.override(models: names) {
        case .failure(let error):
            return try await refused(context, form, error.message, models: models)
        case .success(let override):
            try await calibrator.override(
                model: override.model, offsetDB: override.offsetDB, note: override.note, by: session.username)
            try await audit.record(
                username: session.username, action: "model override set", subject: override.model,
                detail: [AdminFormat.offset(override.offsetDB), override.note].compactMap { $0 }.joined(separator: "; ")
            )
            return AdminRenderer.redirect(to: "/farmer/models?done=override")
        }
    }

    private func removeOverride(_ context: AdminRequestContext) async throws -> Response {
        let session = try context.requireSession()
        let model = (context.form["model"] ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
        guard !model.isEmpty else { return try await refused(context, ModelsForm(), "Choose a phone model.") }
        guard try await calibrator.removeOverride(model: model) else {
            return AdminRenderer.redirect(to: "/farmer/models?done=unchanged")
        }
        try await audit.record(username: session.username, action: "model override removed", subject: model)
        return AdminRenderer.redirect(to: "/farmer/models?done=removed")
    }

    // MARK: - Reference calibrations

    private func toneCalibration(_ context: AdminRequestContext) async throws -> Response {
        let session = try context.requireSession()
        let form = ModelsForm(tone: context.form)
        let (models, names) = try await knownModels()
        let tone: ModelsForm.Tone
        switch form.tone(models: names, upload: context.multipart) {
        case .failure(let error): return try await refused(context, form, error.message, models: models)
        case .success(let valid): tone = valid
        }
        let result: ToneCalibrationResult
        do {
            result = try await Self.measure(tone.recording, referenceDB: tone.referenceDB)
        } catch let error as ToneCalibrationError {
            return try await refused(context, form, Self.sentence(error) + " Nothing was recorded.", models: models)
        }
        let report = ToneCalibrationReport(result)
        let detail = ReferenceDetail.Tone(
            frequencyHz: report.frequencyHz, levelDbfs: report.levelDbfs, snrDb: report.snrDb, seconds: report.seconds,
            referenceDb: tone.referenceDB)
        return try await record(
            .tone(detail), model: tone.model, absoluteOffsetDB: result.offsetDB, by: session.username)
    }

    private func meterCalibration(_ context: AdminRequestContext) async throws -> Response {
        let session = try context.requireSession()
        let form = ModelsForm(meter: context.form)
        let meter: ModelsForm.Meter
        switch form.meter(upload: context.multipart) {
        case .failure(let error): return try await refused(context, form, error.message)
        case .success(let valid): meter = valid
        }
        let calibration: Calibrator.MeterCalibration
        do {
            calibration = try await calibrator.compareWithMeter(checkinID: meter.checkinID, csv: meter.csv)
        } catch let error as Calibrator.MeterCalibrationError {
            return try await refused(
                context, form, "No meter calibration: \(error). Nothing was recorded.",
                status: error == .unknownCheckin ? .notFound : .unprocessableContent)
        }
        let detail = ReferenceDetail.Meter(
            checkinId: calibration.checkinID.uuidString.lowercased(), seconds: calibration.result.seconds,
            spreadDb: (calibration.result.spreadDB * 1000).rounded() / 1000)
        return try await record(
            .meter(detail), model: calibration.model, absoluteOffsetDB: calibration.result.offsetDB,
            by: session.username)
    }

    /// Records a reference calibration (the Calibrator refits at once), audits it with the model
    /// as subject, and goes back to the page with a notice.
    private func record(_ detail: ReferenceDetail, model: String, absoluteOffsetDB: Double, by username: String)
        async throws -> Response
    {
        let (method, json): (ReferenceCalibration.Method, String) =
            switch detail {
            case .tone(let tone): (.tone, try ReferenceDetail.json(tone))
            case .meter(let meter): (.meter, try ReferenceDetail.json(meter))
            }
        let (id, applied) = try await calibrator.recordReference(
            model: model, method: method, absoluteOffsetDB: absoluteOffsetDB, detail: json, by: username)
        try await audit.record(
            username: username, action: "model \(method.rawValue) calibration", subject: model,
            detail: "reference #\(id): \(AdminFormat.offset(absoluteOffsetDB)) absolute; " + detail.summary
                + Self.queued(applied))
        return AdminRenderer.redirect(to: "/farmer/models?done=\(method.rawValue)&reference=\(id)")
    }

    private func withdraw(_ context: AdminRequestContext) async throws -> Response {
        let session = try context.requireSession()
        let text = try context.parameters.require("id")
        guard let id = Int64(text),
            let reference = try await calibrator.references(model: nil).first(where: { $0.id == id })
        else {
            return try await refused(
                context, ModelsForm(), "There is no reference calibration #\(text.prefix(20)).", status: .notFound)
        }
        guard try await calibrator.withdrawReference(id: reference.id) else {
            return AdminRenderer.redirect(to: "/farmer/models?done=unchanged")
        }
        try await audit.record(
            username: session.username, action: "model reference withdrawn", subject: reference.model,
            detail: "reference #\(reference.id): \(reference.method.rawValue), "
                + "\(AdminFormat.offset(reference.absoluteOffsetDB)) absolute")
        return AdminRenderer.redirect(to: "/farmer/models?done=withdrawn")
    }

    private func fitNow(_ context: AdminRequestContext) async throws -> Response {
        let session = try context.requireSession()
        guard let applied = try await calibrator.refit() else {
            return AdminRenderer.redirect(to: "/farmer/models?done=busy")
        }
        try await audit.record(
            username: session.username, action: "models fitted",
            detail: "fit #\(applied.fitID): \(ModelsPage.plural(applied.changedModels.count, "model")) and "
                + "\(ModelsPage.plural(applied.changedDevices, "device")) changed offset"
                + Self.queued(applied))
        return AdminRenderer.redirect(to: "/farmer/models?done=fitted")
    }

    // MARK: - Helpers

    /// On NIO's blocking-work thread pool, as the tone endpoint: decoding and two FFT passes over
    /// a long recording take CPU that must not hold up the event loop. The bytes stay in memory.
    static func measure(_ audio: Data, referenceDB: Double) async throws -> ToneCalibrationResult {
        try await NIOThreadPool.singleton.runIfActive {
            try ToneCalibration.measure(audio, referenceDB: referenceDB, maxDuration: AudioUploads.maxDuration)
        }
    }

    /// A refusal as the admin reads it: what the recording held, or why it could not be read.
    static func sentence(_ error: ToneCalibrationError) -> String {
        switch error {
        case .noTone(let reason):
            return "No clean calibration tone: \(reason)."
        case .audio(let audioError):
            let problem = Problem(audioError)
            return problem.title + (problem.detail.map { ": \($0)." } ?? ".")
        }
    }

    static func queued(_ applied: AppliedCalibration?) -> String {
        guard let applied else { return "; another instance was fitting" }
        return "; \(ModelsPage.plural(applied.queuedVenues, "venue")) queued"
    }
}
