extension QuantizedNetwork {
    /// What a name in the graph stands for while compiling.
    private enum Value {
        /// A constant: an initializer, or a weight folded onto its 8-bit grid.
        case constant(ONNXModel.Tensor)
        /// A QuantizeLinear of a constant not yet dequantized: the tensor, its scales, zero points, axis.
        case quantizedConstant(
            ONNXModel.Tensor, scales: [Float], zeroPoints: [Float], axis: Int, range: ClosedRange<Float>)
        /// The graph's input (before any step).
        case input
        /// The activation after the last step.
        case activation
        /// The activation quantized by a QuantizeLinear, waiting for its DequantizeLinear.
        case quantizedActivation(Quantization)
    }

    static func compile(
        _ model: ONNXModel
    ) throws(ONNXModelError) -> (
        steps: [Step], input: [Int], inputQuantization: Quantization?, outputQuantization: Quantization?
    ) {
        guard !model.inputNames.isEmpty, model.outputNames.count == 1 else {
            throw .unexpectedShape("\(model.inputNames.count) inputs and \(model.outputNames.count) outputs")
        }
        var compilation = Compilation(model)
        for node in model.nodes { try compilation.add(node) }
        guard compilation.lastActivation == model.outputNames[0] else {
            throw .unsupported("the graph's output \(model.outputNames[0]) is not the end of its chain")
        }
        return (
            compilation.steps, try inputShape(model, compilation.inputName), compilation.inputQuantization,
            compilation.outputQuantization
        )
    }

    /// The graph's nodes read in order into steps: what each name stands for so far, the steps,
    /// the input's and output's grids and the name of the activation the next step must read.
    private struct Compilation {
        let model: ONNXModel
        let inputName: String
        var values: [String: Value]
        var steps: [Step] = []
        var inputQuantization: Quantization?
        var outputQuantization: Quantization?
        var lastActivation: String

        init(_ model: ONNXModel) {
            var values: [String: Value] = [:]
            for (name, tensor) in model.initializers { values[name] = .constant(tensor) }
            let inputName = model.inputNames.first { values[$0] == nil } ?? ""
            values[inputName] = .input
            self.model = model
            self.inputName = inputName
            self.values = values
            lastActivation = inputName
        }

        func constant(_ name: String) throws(ONNXModelError) -> ONNXModel.Tensor {
            guard case .constant(let tensor) = values[name] else { throw .unsupported("\(name) is not a constant") }
            return tensor
        }

        func requireActivation(_ name: String, of op: String) throws(ONNXModelError) {
            guard name == lastActivation else {
                throw .unsupported("\(op) of \(name), not of the previous step's output (only a chain is run)")
            }
        }

        /// A step whose output is the chain's new activation.
        mutating func append(_ step: Step, output: String) {
            steps.append(step)
            values[output] = .activation
            lastActivation = output
        }

        mutating func add(_ node: ONNXModel.Node) throws(ONNXModelError) {
            switch node.opType {
            case "QuantizeLinear", "DequantizeLinear": try addQuantization(node)
            case "Conv": try addConvolution(node)
            case "Relu", "GlobalAveragePool", "Reshape": try addReshaping(node)
            case "Gemm": try addDense(node)
            default: throw .unsupported("operator \(node.opType)")
            }
        }

        /// A QuantizeLinear or DequantizeLinear: of a weight (folded into it), of an activation
        /// (a fake quantization step, or the output's grid) or of the input (its grid).
        mutating func addQuantization(_ node: ONNXModel.Node) throws(ONNXModelError) {
            let op = node.opType
            guard node.inputs.count >= 2, node.outputs.count == 1 else { throw .malformed("\(op) arguments") }
            let scale = try constant(node.inputs[1])
            let zero = node.inputs.count > 2 && !node.inputs[2].isEmpty ? try constant(node.inputs[2]) : nil
            let zeroPoints = zero?.values ?? [Float](repeating: 0, count: scale.values.count)
            let range: ClosedRange<Float> = zero?.dataType == ONNXModel.int8 ? -128...127 : 0...255
            guard zeroPoints.count == scale.values.count, !scale.values.isEmpty else {
                throw .malformed("\(op) with \(scale.values.count) scales and \(zeroPoints.count) zero points")
            }
            let axis: Int
            switch node.attributes["axis"] {
            case .int(let value): axis = Int(value)
            default: axis = 1
            }
            let output = node.outputs[0]
            switch (op, values[node.inputs[0]]) {
            case ("QuantizeLinear", .constant(let tensor)):
                values[output] = .quantizedConstant(
                    tensor, scales: scale.values, zeroPoints: zeroPoints, axis: axis, range: range)
            case ("DequantizeLinear", .quantizedConstant(let tensor, let scales, let zeros, let axis, let range)):
                values[output] = .constant(
                    try QuantizedNetwork.folded(tensor, scales: scales, zeroPoints: zeros, axis: axis, range: range))
            case ("QuantizeLinear", .activation):
                try requireActivation(node.inputs[0], of: op)
                guard scale.values.count == 1 else { throw .unsupported("per-channel activation quantization") }
                let grid = Quantization(scale: scale.values[0], zeroPoint: zeroPoints[0], range: range)
                if model.outputNames.contains(output) {
                    outputQuantization = grid
                    values[output] = .activation
                    lastActivation = output
                } else {
                    values[output] = .quantizedActivation(grid)
                }
            case ("DequantizeLinear", .quantizedActivation(let grid)):
                append(.fakeQuantization(grid), output: output)
            case ("DequantizeLinear", .input):
                guard scale.values.count == 1, steps.isEmpty else { throw .unsupported("the input's quantization") }
                inputQuantization = Quantization(scale: scale.values[0], zeroPoint: zeroPoints[0], range: range)
                values[output] = .activation
                lastActivation = output
            default:
                throw .unsupported("\(op) of \(node.inputs[0])")
            }
        }

        /// A Conv: plain or depthwise, dilation 1.
        mutating func addConvolution(_ node: ONNXModel.Node) throws(ONNXModelError) {
            guard node.inputs.count >= 2, node.outputs.count == 1 else { throw .malformed("Conv arguments") }
            try requireActivation(node.inputs[0], of: node.opType)
            let weights = try constant(node.inputs[1])
            guard weights.dims.count == 4 else { throw .unsupported("Conv weights of shape \(weights.dims)") }
            let outputs = weights.dims[0]
            let bias =
                node.inputs.count > 2 ? try constant(node.inputs[2]).values : [Float](repeating: 0, count: outputs)
            guard bias.count == outputs else {
                throw .malformed("Conv bias of \(bias.count) for \(outputs) channels")
            }
            let groups = node.attributes["group"].flatMap { if case .int(let g) = $0 { Int(g) } else { nil } } ?? 1
            let strides = QuantizedNetwork.ints(node.attributes["strides"]) ?? [1, 1]
            let pads = QuantizedNetwork.ints(node.attributes["pads"]) ?? [0, 0, 0, 0]
            let dilations = QuantizedNetwork.ints(node.attributes["dilations"]) ?? [1, 1]
            guard strides.count == 2, pads.count == 4, dilations == [1, 1], groups >= 1 else {
                throw .unsupported("Conv with strides \(strides), pads \(pads), dilations \(dilations)")
            }
            let inputChannels = weights.dims[1] * groups
            guard groups == 1 || (groups == inputChannels && groups == outputs && weights.dims[1] == 1) else {
                throw .unsupported("grouped Conv of \(groups) groups that is not depthwise")
            }
            append(
                .convolution(
                    Convolution(
                        outputChannels: outputs, inputChannels: inputChannels, groups: groups,
                        kernel: (weights.dims[2], weights.dims[3]), strides: (strides[0], strides[1]),
                        pads: (pads[0], pads[1], pads[2], pads[3]), weights: weights.values, bias: bias)),
                output: node.outputs[0])
        }

        /// A Relu, a GlobalAveragePool or a Reshape (to one row only).
        mutating func addReshaping(_ node: ONNXModel.Node) throws(ONNXModelError) {
            let op = node.opType
            guard let input = node.inputs.first, node.outputs.count == 1 else {
                throw .malformed("\(op) arguments")
            }
            try requireActivation(input, of: op)
            if op == "Reshape" {
                let target = try constant(node.inputs[1]).integers
                guard target.count == 2, target[0] == 1 || target[0] == -1 || target[0] == 0 else {
                    throw .unsupported("Reshape to \(target) (only to one row)")
                }
            }
            append(op == "Relu" ? .relu : op == "Reshape" ? .flatten : .globalAveragePool, output: node.outputs[0])
        }

        /// A Gemm of the activation by transposed weights, alpha and beta 1.
        mutating func addDense(_ node: ONNXModel.Node) throws(ONNXModelError) {
            guard node.inputs.count >= 2, node.outputs.count == 1 else { throw .malformed("Gemm arguments") }
            try requireActivation(node.inputs[0], of: node.opType)
            let weights = try constant(node.inputs[1])
            let transB = node.attributes["transB"].flatMap { if case .int(let t) = $0 { Int(t) } else { nil } } ?? 0
            let transA = node.attributes["transA"].flatMap { if case .int(let t) = $0 { Int(t) } else { nil } } ?? 0
            for name in ["alpha", "beta"] {
                if case .float(let value) = node.attributes[name], value != 1 {
                    throw .unsupported("Gemm with \(name) \(value)")
                }
            }
            guard weights.dims.count == 2, transB == 1, transA == 0 else {
                throw .unsupported("Gemm of weights \(weights.dims), transA \(transA), transB \(transB)")
            }
            let outputs = weights.dims[0]
            let bias =
                node.inputs.count > 2 ? try constant(node.inputs[2]).values : [Float](repeating: 0, count: outputs)
            guard bias.count == outputs else { throw .malformed("Gemm bias of \(bias.count) for \(outputs)") }
            append(.dense(weights: weights.values, bias: bias, outputs: outputs), output: node.outputs[0])
        }
    }

    /// Channels, height and width of the graph's input, from its declared shape [1, C, H, W].
    private static func inputShape(_ model: ONNXModel, _ name: String) throws(ONNXModelError) -> [Int] {
        guard let dims = model.inputShapes[name], dims.count == 4, dims[0] == 1, dims[1...].allSatisfy({ $0 > 0 })
        else {
            throw .unexpectedShape("input \(name) without a fixed [1, C, H, W] shape")
        }
        return Array(dims[1...])
    }

    private static func ints(_ attribute: ONNXModel.Attribute?) -> [Int]? {
        guard case .ints(let values) = attribute else { return nil }
        return values.map(Int.init)
    }

    /// A weight as the graph computes it: each value quantized to its channel's 8-bit grid and back.
    private static func folded(
        _ tensor: ONNXModel.Tensor, scales: [Float], zeroPoints: [Float], axis: Int, range: ClosedRange<Float>
    ) throws(ONNXModelError) -> ONNXModel.Tensor {
        var result = tensor
        if scales.count == 1 {
            let grid = Quantization(scale: scales[0], zeroPoint: zeroPoints[0], range: range)
            result.values = tensor.values.map(grid.roundTrip)
            return result
        }
        guard axis >= 0, axis < tensor.dims.count, tensor.dims[axis] == scales.count else {
            throw .malformed("\(scales.count) scales on axis \(axis) of \(tensor.dims)")
        }
        let inner = tensor.dims[(axis + 1)...].reduce(1, *)
        for index in result.values.indices {
            let channel = (index / inner) % scales.count
            let grid = Quantization(scale: scales[channel], zeroPoint: zeroPoints[channel], range: range)
            result.values[index] = grid.roundTrip(tensor.values[index])
        }
        return result
    }
}
