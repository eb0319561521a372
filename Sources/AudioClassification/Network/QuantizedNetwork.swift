import COpenBLAS
import Foundation
import Synchronization

/// Runs a quantize-dequantize ("QDQ") ONNX export of a convolutional classifier such as
/// MobileNet-v1 YAMNet, one input at a time, in single-precision floats: the operators
/// `QuantizeLinear`, `DequantizeLinear`, `Conv` (any group count; pointwise and im2col products by
/// OpenBLAS's `cblas_sgemm`, depthwise by direct loops), `Relu`, `GlobalAveragePool`, `Reshape`
/// (to one row) and `Gemm`.
///
/// The graph is compiled once into steps: a weight's QuantizeLinear → DequantizeLinear pair is
/// folded into the weight (each value rounded to its 8-bit grid, per channel where the scale is),
/// an activation's pair becomes one "fake quantization" step (round to the 8-bit grid, clamp, back
/// to float), as ONNX defines the two operators (round half to even, saturate). So the output
/// equals, up to float rounding, what ONNX Runtime computes for the same graph.
///
/// Immutable once loaded and `Sendable`: each ``run(_:)`` allocates its own scratch space, so
/// one network serves concurrent requests. The matrix products themselves take turns
/// (``blasTurn``): a single-threaded OpenBLAS (Debian's `libopenblas-serial`, built without
/// `USE_LOCKING`) hands two callers on different threads the same packing buffer, and a run beside
/// another then gives wrong outputs (`ModelReferenceTests` runs four at once against a lone run).
public final class QuantizedNetwork: Sendable {
    /// Held around every OpenBLAS call, by every network in the process: OpenBLAS's buffers are
    /// the library's, not a network's. The rest of a run (im2col, depthwise convolutions, the
    /// fake quantization) still runs side by side.
    static let blasTurn = Mutex(())

    /// The input's shape: channels, height, width (a batch of one).
    public let inputShape: [Int]
    /// The width of the output row.
    public let outputCount: Int
    /// The 8-bit grid the model's input is quantized to, when the graph quantizes it.
    public let inputQuantization: Quantization?
    /// The 8-bit grid of the model's output, when the graph quantizes it: ``run(_:)`` returns the
    /// float values before that last rounding (finer than the grid), and ``Quantization/quantize(_:)``
    /// gives what the graph's output would be.
    public let outputQuantization: Quantization?
    let steps: [Step]
    /// Floats of the largest activation, for the scratch buffers.
    let largestActivation: Int
    let largestColumns: Int

    /// An 8-bit grid: value = scale · (q − zeroPoint), q in `range`.
    public struct Quantization: Sendable, Equatable {
        public var scale: Float
        public var zeroPoint: Float
        public var range: ClosedRange<Float>

        /// The grid value ONNX's QuantizeLinear gives `value` (round half to even, saturate).
        public func quantize(_ value: Float) -> Float {
            min(range.upperBound, max(range.lowerBound, (value / scale).rounded(.toNearestOrEven) + zeroPoint))
        }

        /// QuantizeLinear then DequantizeLinear.
        public func roundTrip(_ value: Float) -> Float { (quantize(value) - zeroPoint) * scale }
    }

    struct Convolution {
        var outputChannels: Int
        var inputChannels: Int
        var groups: Int
        var kernel: (height: Int, width: Int)
        var strides: (height: Int, width: Int)
        /// Top, left, bottom, right.
        var pads: (top: Int, left: Int, bottom: Int, right: Int)
        /// [outputChannels][inputChannels / groups][kernel height][kernel width].
        var weights: [Float]
        var bias: [Float]

        /// A 1×1 kernel at stride 1 without padding: the input is already the matrix the product
        /// needs, so no im2col copy (nor its buffer).
        var readsInputAsIs: Bool { kernel == (1, 1) && strides == (1, 1) && pads == (0, 0, 0, 0) }

        func outputSize(height: Int, width: Int) -> (height: Int, width: Int) {
            (
                (height + pads.top + pads.bottom - kernel.height) / strides.height + 1,
                (width + pads.left + pads.right - kernel.width) / strides.width + 1
            )
        }
    }

    enum Step {
        case convolution(Convolution)
        case relu
        case fakeQuantization(Quantization)
        case globalAveragePool
        case flatten
        /// y = x · Wᵀ + b, W of `outputs` rows.
        case dense(weights: [Float], bias: [Float], outputs: Int)
    }

    /// Loads `model.onnx` (and its external data beside it) and compiles it.
    /// - Throws: ``ONNXModelError`` when the file cannot be read or the graph is not a chain of
    ///   the operators above on a [1, C, H, W] input.
    public convenience init(contentsOf file: URL) throws(ONNXModelError) {
        try self.init(model: try ONNXModel(contentsOf: file))
    }

    init(model: ONNXModel) throws(ONNXModelError) {
        let (steps, input, inputQuantization, outputQuantization) = try Self.compile(model)
        self.steps = steps
        inputShape = input
        self.inputQuantization = inputQuantization
        self.outputQuantization = outputQuantization
        // Walk the shapes once: the output width, the largest activation and im2col buffer.
        var shape = input
        var largest = input.reduce(1, *)
        var columns = 0
        for step in steps {
            switch step {
            case .convolution(let conv):
                guard shape.count == 3, shape[0] == conv.inputChannels else {
                    throw .unexpectedShape("a convolution of \(conv.inputChannels) channels after \(shape)")
                }
                let size = conv.outputSize(height: shape[1], width: shape[2])
                guard size.height > 0, size.width > 0 else { throw .unexpectedShape("a convolution to nothing") }
                if conv.groups == 1 && !conv.readsInputAsIs {
                    columns = max(
                        columns, conv.inputChannels * conv.kernel.height * conv.kernel.width * size.height * size.width)
                }
                shape = [conv.outputChannels, size.height, size.width]
            case .globalAveragePool:
                guard shape.count == 3 else { throw .unexpectedShape("a pool after \(shape)") }
                shape = [shape[0], 1, 1]
            case .flatten: shape = [shape.reduce(1, *)]
            case .dense(let weights, _, let outputs):
                let inputs = shape.reduce(1, *)
                guard weights.count == inputs * outputs else {
                    throw .unexpectedShape("a dense layer of \(weights.count) weights after \(inputs) values")
                }
                shape = [outputs]
            case .relu, .fakeQuantization: break
            }
            largest = max(largest, shape.reduce(1, *))
        }
        guard shape.count == 1 else { throw .unexpectedShape("output \(shape), not one row") }
        outputCount = shape[0]
        largestActivation = largest
        largestColumns = columns
    }

    /// The output row for one input of ``inputShape`` (channels × height × width, row-major).
    public func run(_ input: [Float]) -> [Float] {
        precondition(input.count == inputShape.reduce(1, *), "input of \(input.count) values for \(inputShape)")
        let a = UnsafeMutableBufferPointer<Float>.allocate(capacity: largestActivation)
        let b = UnsafeMutableBufferPointer<Float>.allocate(capacity: largestActivation)
        let columns = UnsafeMutableBufferPointer<Float>.allocate(capacity: max(1, largestColumns))
        defer {
            a.deallocate()
            b.deallocate()
            columns.deallocate()
        }
        var current = a
        var other = b
        _ = current.initialize(from: input)
        var shape = inputShape
        if let inputQuantization { Self.fakeQuantize(current, count: input.count, inputQuantization) }
        for step in steps {
            let count = shape.reduce(1, *)
            switch step {
            case .convolution(let conv):
                let size = conv.outputSize(height: shape[1], width: shape[2])
                Self.convolve(conv, input: current, height: shape[1], width: shape[2], output: other, columns: columns)
                swap(&current, &other)
                shape = [conv.outputChannels, size.height, size.width]
            case .relu:
                let values = current.baseAddress!
                for i in 0..<count { values[i] = max(values[i], 0) }
            case .fakeQuantization(let q): Self.fakeQuantize(current, count: count, q)
            case .globalAveragePool:
                let plane = shape[1] * shape[2]
                for channel in 0..<shape[0] {
                    var sum: Float = 0
                    for i in 0..<plane { sum += current[channel * plane + i] }
                    other[channel] = sum / Float(plane)
                }
                swap(&current, &other)
                shape = [shape[0], 1, 1]
            case .flatten: shape = [count]
            case .dense(let weights, let bias, let outputs):
                _ = UnsafeMutableBufferPointer(rebasing: other[0..<outputs]).initialize(from: bias)
                weights.withUnsafeBufferPointer { w in
                    Self.blasTurn.withLock { _ in
                        cblas_sgemv(
                            CblasRowMajor, CblasNoTrans, Int32(outputs), Int32(count), 1, w.baseAddress, Int32(count),
                            current.baseAddress, 1, 1, other.baseAddress, 1)
                    }
                }
                swap(&current, &other)
                shape = [outputs]
            }
        }
        return Array(current[0..<shape[0]])
    }

    /// Rounds every value to the grid and back: clamping v = x / scale to the grid's range first
    /// (its bounds are whole numbers, so this equals ONNX's round-then-saturate), then rounding half
    /// to even by adding and subtracting 1.5 · 2²³ (exact for |v| < 2²², which the clamp ensures),
    /// which the compiler vectorises where `rounded()` calls rintf for each value.
    static func fakeQuantize(_ values: UnsafeMutableBufferPointer<Float>, count: Int, _ q: Quantization) {
        let scale = q.scale
        let low = q.range.lowerBound - q.zeroPoint
        let high = q.range.upperBound - q.zeroPoint
        let magic: Float = 12_582_912
        guard let base = values.baseAddress else { return }
        for i in 0..<count {
            let v = min(high, max(low, base[i] / scale))
            base[i] = ((v + magic) - magic) * scale
        }
    }

    static func convolve(
        _ conv: Convolution, input: UnsafeMutableBufferPointer<Float>, height: Int, width: Int,
        output: UnsafeMutableBufferPointer<Float>, columns: UnsafeMutableBufferPointer<Float>
    ) {
        let size = conv.outputSize(height: height, width: width)
        let plane = size.height * size.width
        if conv.groups == conv.inputChannels && conv.groups == conv.outputChannels && conv.groups > 1 {
            depthwise(conv, input: input, height: height, width: width, output: output, size: size)
            return
        }
        precondition(conv.groups == 1, "grouped convolutions other than depthwise are refused at load")
        let depth = conv.inputChannels * conv.kernel.height * conv.kernel.width
        let source: UnsafeMutableBufferPointer<Float>
        if conv.readsInputAsIs {
            source = input
        } else {
            im2col(conv, input: input, height: height, width: width, size: size, columns: columns)
            source = columns
        }
        for channel in 0..<conv.outputChannels {
            let bias = conv.bias[channel]
            for i in 0..<plane { output[channel * plane + i] = bias }
        }
        conv.weights.withUnsafeBufferPointer { w in
            Self.blasTurn.withLock { _ in
                cblas_sgemm(
                    CblasRowMajor, CblasNoTrans, CblasNoTrans, Int32(conv.outputChannels), Int32(plane), Int32(depth),
                    1, w.baseAddress, Int32(depth), source.baseAddress, Int32(plane), 1, output.baseAddress,
                    Int32(plane))
            }
        }
    }

    /// Rows (input channel, kernel row, kernel column) of the input values each output position
    /// sees, zero where the kernel lies on the padding.
    static func im2col(
        _ conv: Convolution, input: UnsafeMutableBufferPointer<Float>, height: Int, width: Int,
        size: (height: Int, width: Int), columns: UnsafeMutableBufferPointer<Float>
    ) {
        let plane = size.height * size.width
        var row = 0
        for channel in 0..<conv.inputChannels {
            for ky in 0..<conv.kernel.height {
                for kx in 0..<conv.kernel.width {
                    let base = row * plane
                    for oy in 0..<size.height {
                        let y = oy * conv.strides.height + ky - conv.pads.top
                        for ox in 0..<size.width {
                            let x = ox * conv.strides.width + kx - conv.pads.left
                            columns[base + oy * size.width + ox] =
                                y >= 0 && y < height && x >= 0 && x < width
                                ? input[(channel * height + y) * width + x] : 0
                        }
                    }
                    row += 1
                }
            }
        }
    }

    /// Each channel by its own kernel: for every output row and kernel tap, one pass along the
    /// row over the output columns whose input lies inside the image (no test per value, so the
    /// stride-1 passes vectorise).
    static func depthwise(
        _ conv: Convolution, input: UnsafeMutableBufferPointer<Float>, height: Int, width: Int,
        output: UnsafeMutableBufferPointer<Float>, size: (height: Int, width: Int)
    ) {
        let kh = conv.kernel.height
        let kw = conv.kernel.width
        let sy = conv.strides.height
        let sx = conv.strides.width
        guard let source = input.baseAddress, let target = output.baseAddress else { return }
        conv.weights.withUnsafeBufferPointer { weights in
            for channel in 0..<conv.outputChannels {
                let bias = conv.bias[channel]
                let plane = source + channel * height * width
                let outPlane = target + channel * size.height * size.width
                for i in 0..<(size.height * size.width) { outPlane[i] = bias }
                for kx in 0..<kw {
                    // Output columns ox with 0 ≤ ox·sx + kx − padLeft < width.
                    let shift = kx - conv.pads.left
                    let first = shift >= 0 ? 0 : (-shift + sx - 1) / sx
                    let last = min(size.width - 1, (width - 1 - shift) / sx)
                    guard first <= last else { continue }
                    for oy in 0..<size.height {
                        let row = outPlane + oy * size.width
                        for ky in 0..<kh {
                            let y = oy * sy + ky - conv.pads.top
                            guard y >= 0 && y < height else { continue }
                            let w = weights[(channel * kh + ky) * kw + kx]
                            let line = plane + y * width + shift
                            if sx == 1 {
                                for ox in first...last { row[ox] += w * line[ox] }
                            } else {
                                for ox in first...last { row[ox] += w * line[ox * sx] }
                            }
                        }
                    }
                }
            }
        }
    }
}
