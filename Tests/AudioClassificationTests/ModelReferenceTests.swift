import AudioTestSupport
import Foundation
import Synchronization
import Testing

@testable import AudioClassification

/// The front end against NumPy and the network against ONNX Runtime (both in the project's .venv,
/// installed by scripts/deps.sh), on fixed signals defined by formulas both sides compute.
@Suite("AudioSet model against references")
struct ModelReferenceTests {
    static let modelFolder = URL(fileURLWithPath: ProjectPython.repositoryRoot + "/" + AudioSetModel.defaultFolder)
    static var hasModel: Bool {
        FileManager.default.fileExists(atPath: modelFolder.appendingPathComponent("model.onnx").path)
    }
    static let model: AudioSetModel? = try? AudioSetModel(folder: modelFolder)

    /// The signals, by name: 1.6 s at 16 kHz (two patches). Python's copy of the same formulas is
    /// in `signalsPython`.
    static func signal(_ name: String) -> [Float] {
        let count = 25_600
        var state: UInt32 = 12345
        return (0..<count).map { n in
            let t = Double(n) / 16000
            switch name {
            case "tones":
                return Float(0.3 * sin(2 * .pi * 440 * t) + 0.2 * sin(2 * .pi * 3000 * t + 0.5))
            case "chirp":
                return Float(0.25 * sin(2 * .pi * (200 * t + 1500 * t * t)))
            default:  // "noise": a 32-bit linear congruential generator, uniform in ±0.2
                state = state &* 1_664_525 &+ 1_013_904_223
                return Float(Double(state) / 4_294_967_296 * 0.4 - 0.2)
            }
        }
    }

    static let signalsPython = """
        import numpy as np
        def signal(name):
            n = np.arange(25600); t = n / 16000
            if name == "tones": return (0.3 * np.sin(2 * np.pi * 440 * t) + 0.2 * np.sin(2 * np.pi * 3000 * t + 0.5)).astype(np.float32)
            if name == "chirp": return (0.25 * np.sin(2 * np.pi * (200 * t + 1500 * t * t))).astype(np.float32)
            state = 12345; out = []
            for _ in range(25600):
                state = (state * 1664525 + 1013904223) % 2**32
                out.append(state / 4294967296 * 0.4 - 0.2)
            return np.array(out, dtype=np.float32)

        """

    /// The front end's patches of a signal, fed in uneven pieces as a decoder would.
    static func patches(of samples: [Float]) -> [[Float]] {
        var patches: [[Float]] = []
        let frontEnd = LogMelFrontEnd { patches.append($0) }
        var start = 0
        var piece = 777
        while start < samples.count {
            let end = min(samples.count, start + piece)
            samples[start..<end].withUnsafeBufferPointer { frontEnd.consume($0) }
            start = end
            piece = piece == 777 ? 4096 : 777
        }
        return patches
    }

    @Test(
        "log-mel patches equal NumPy's computation of YAMNet's definition",
        .enabled(if: ProjectPython.isAvailable, "no .venv/bin/python: run scripts/deps.sh"))
    func frontEndMatchesNumPy() throws {
        // Independent: NumPy's FFT in double precision and the mel matrix written from
        // tf.signal.linear_to_mel_weight_matrix's definition.
        let script =
            Self.signalsPython + """
                import json, sys
                def logmel(x):
                    window = 0.5 - 0.5 * np.cos(2 * np.pi * np.arange(400) / 400)
                    frames = np.array([x[i:i + 400] * window for i in range(0, len(x) - 399, 160)])
                    magnitude = np.abs(np.fft.rfft(frames, 512))
                    mel = lambda f: 1127 * np.log1p(f / 700)
                    bins = mel(np.linspace(0, 8000, 257))
                    edges = np.linspace(mel(125), mel(7500), 66)
                    weights = np.zeros((257, 64))
                    for b in range(64):
                        lo, c, hi = edges[b], edges[b + 1], edges[b + 2]
                        weights[:, b] = np.maximum(0, np.minimum((bins - lo) / (c - lo), (hi - bins) / (hi - c)))
                    weights[0, :] = 0
                    return np.log(magnitude @ weights + 0.001)
                result = {}
                for name in ["tones", "chirp", "noise"]:
                    m = logmel(signal(name))
                    result[name] = [m[s:s + 96].reshape(-1).tolist() for s in range(0, len(m) - 95, 48)]
                json.dump(result, sys.stdout)
                """
        let reference = try JSONDecoder().decode(
            [String: [[Double]]].self, from: try ProjectPython.run(script, input: Data()))
        for name in ["tones", "chirp", "noise"] {
            let patches = Self.patches(of: Self.signal(name))
            let expected = try #require(reference[name])
            #expect(patches.count == expected.count && patches.count == 2, "\(name): \(patches.count) patches")
            var worst = 0.0
            var total = 0.0
            var values = 0
            for (patch, want) in zip(patches, expected) {
                for (a, b) in zip(patch, want) {
                    worst = max(worst, abs(Double(a) - b))
                    total += abs(Double(a) - b)
                    values += 1
                }
            }
            // Float32 against float64: the log of a band near zero magnifies the FFT's rounding
            // (seen here: at most 0.0022, mean 1.0e-4 on the tones and the chirp, 1.5e-6 on noise).
            #expect(worst < 0.01, "\(name): largest difference \(worst)")
            #expect(total / Double(values) < 5e-4, "\(name): mean difference \(total / Double(values))")
        }
    }

    @Test(
        "the network's 8-bit outputs equal ONNX Runtime's on the same patches",
        .enabled(if: ProjectPython.isAvailable && hasModel, "needs .venv and models/yamnet: run scripts/deps.sh"))
    func networkMatchesONNXRuntime() throws {
        let model = try #require(Self.model)
        let input = try #require(model.network.inputQuantization)
        let output = try #require(model.network.outputQuantization)
        var patches: [[Float]] = []
        for name in ["tones", "chirp", "noise"] { patches += Self.patches(of: Self.signal(name)) }
        // ONNX Runtime gets the same quantized input the graph's first DequantizeLinear reads.
        let quantized = patches.map { $0.map { Int(input.quantize($0)) } }
        let script = """
            import json, sys, numpy as np, onnxruntime as ort
            patches = json.load(sys.stdin)
            # The graph as written (QuantizeLinear, DequantizeLinear, float Conv): ONNX Runtime's
            # optimised session fuses them into integer kernels that round differently (up to 3
            # steps from its own unoptimised result).
            options = ort.SessionOptions()
            options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
            session = ort.InferenceSession("\(Self.modelFolder.path)/model.onnx", options)
            name = session.get_inputs()[0].name
            out = [session.run(None, {name: np.array(p, dtype=np.uint8).reshape(1, 1, 96, 64)})[0].reshape(-1).tolist()
                   for p in patches]
            json.dump(out, sys.stdout)
            """
        let reference = try JSONDecoder().decode(
            [[Int]].self, from: try ProjectPython.run(script, input: try JSONEncoder().encode(quantized)))
        #expect(reference.count == patches.count)
        for (index, (patch, want)) in zip(patches, reference).enumerated() {
            let got = model.network.run(patch).map { Int(output.quantize($0)) }
            let differences = zip(got, want).map { abs($0 - $1) }
            let equal = differences.filter { $0 == 0 }.count
            // Seen here: every output equal. A step apart may come from another BLAS summing
            // in another order just at a rounding boundary; more would be a different network.
            #expect(differences.max()! <= 1, "patch \(index): largest difference \(differences.max()!) steps")
            #expect(Double(equal) / Double(got.count) >= 0.99, "patch \(index): \(equal) of \(got.count) equal")
            let top = { (values: [Int]) in Set(values.indices.sorted { values[$0] > values[$1] }.prefix(3)) }
            #expect(!top(got).isDisjoint(with: top(want)), "patch \(index): top classes differ")
        }
    }

    @Test(
        "runs on several threads at once give a lone run's outputs exactly",
        .enabled(if: hasModel, "needs models/yamnet: run scripts/deps.sh"))
    func concurrentRunsEqualALoneRun() throws {
        // The server meters several recordings at once on one shared network: its matrix products
        // (OpenBLAS) must not share scratch space between callers. Once, a run beside another gave
        // 238 of 521 outputs wrong on one patch; a lone run is deterministic, so any difference
        // here is one run disturbing another.
        let model = try #require(Self.model)
        let patches = ["tones", "chirp", "noise"].flatMap { Self.patches(of: Self.signal($0)) }
        let alone = patches.map { model.network.run($0) }
        let rounds = 40
        let mismatches = Mutex(0)
        DispatchQueue.concurrentPerform(iterations: 4) { worker in
            for round in 0..<rounds {
                let index = (worker + round) % patches.count
                if model.network.run(patches[index]) != alone[index] { mismatches.withLock { $0 += 1 } }
            }
        }
        #expect(mismatches.withLock { $0 } == 0, "of \(4 * rounds) runs on 4 threads")
    }
}
