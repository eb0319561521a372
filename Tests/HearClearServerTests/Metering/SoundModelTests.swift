import Foundation
import HTTPTypes
import HearClearEngine
import HearClearModel
import HearClearServerTestSupport
import HearClearTestSupport
import HummingbirdTesting
import NIOCore
import Testing

/// `--sound-model`: the AudioSet model labels `POST /api/v2/meter`'s windows when it is there,
/// the spectra rules when it is not (or is turned off), and a named folder without a model stops
/// the start.
@Suite("Sound model")
struct SoundModelTests {
    static let root = TestCluster.repositoryRoot
    static var hasModel: Bool { FileManager.default.fileExists(atPath: root + "/models/yamnet/model.onnx") }

    /// 12 s of white noise (a 32-bit LCG, ±0.3) at 16 kHz.
    static func noise() throws -> Data {
        var state: UInt32 = 7
        let samples = (0..<(12 * 16000)).map { _ -> Float in
            state = state &* 1_664_525 &+ 1_013_904_223
            return Float(Double(state) / 4_294_967_296 * 0.6 - 0.3)
        }
        return try TestAudio.encode(samples, channels: 1, sampleRate: 16000, format: TestAudio.wav16)
    }

    static func meter(model: Bool) async throws -> [String: Any] {
        var configuration = testConfiguration()
        configuration.engine.soundModelSetting = model ? nil : "off"
        configuration.engine = try configuration.engine.resolvingSoundModel(logger: testLogger)
        let audio = try noise()
        let response = try await withRouterApp(configuration: configuration) { client, _ in
            try await client.execute(
                uri: "/api/v2/meter", method: .post, headers: [.contentType: "audio/wav"], body: ByteBuffer(data: audio)
            )
        }
        #expect(response.status == .ok)
        return try #require(MeterAnswer(response)["character"] as? [String: Any])
    }

    @Test("with the model, windows carry its label and top classes", .enabled(if: hasModel, "run scripts/deps.sh"))
    func modelLabels() async throws {
        let character = try await Self.meter(model: true)
        #expect(character["classifier"] as? String == "yamnet-w8a8")
        let window = try #require((character["windows"] as? [[String: Any]])?.first)
        #expect(window["label"] as? String == "steady_noise", "\(window["reason"] ?? "")")
        let top = try #require(window["top"] as? [[String: Any]])
        #expect(top.count == 5)
        let scores = top.compactMap { $0["score"] as? Double }
        #expect(scores == scores.sorted(by: >) && scores.allSatisfy { (0...1).contains($0) })
        #expect(top.allSatisfy { ($0["label"] as? String)?.isEmpty == false })
    }

    @Test("--sound-model off: the spectra rules, and no top classes")
    func rulesWhenOff() async throws {
        let character = try await Self.meter(model: false)
        #expect(character["classifier"] as? String == "spectra-rules")
        let window = try #require((character["windows"] as? [[String: Any]])?.first)
        #expect((window["top"] as? [Any])?.isEmpty == true)
        #expect(window["label"] as? String == "steady_noise")
    }

    @Test("no model under the resources: the rules, with a warning; a named folder without one: an error")
    func missingModel() throws {
        let empty = FileManager.default.temporaryDirectory.appendingPathComponent("no-model-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: empty, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: empty) }
        #expect(try SoundModelLoading.load(nil, resources: empty, logger: testLogger) == nil)
        #expect(try SoundModelLoading.load("off", resources: Self.root, logger: testLogger) == nil)
        #expect(throws: ConfigurationError.self) {
            try SoundModelLoading.load(empty, resources: Self.root, logger: testLogger)
        }
    }
}
