import Foundation

/// Why a model file could not be used.
public enum ONNXModelError: Error, Equatable, CustomStringConvertible {
    /// The file is not valid protobuf, or not an ONNX model.
    case malformed(String)
    /// The model uses an operator, attribute or type the interpreter does not run.
    case unsupported(String)
    /// A file the model names is missing or unreadable.
    case unreadable(path: String, reason: String)
    /// The model's input or output is not what the classifier expects.
    case unexpectedShape(String)

    public var description: String {
        switch self {
        case .malformed(let what): "malformed ONNX model: \(what)"
        case .unsupported(let what): "unsupported in the ONNX model: \(what)"
        case .unreadable(let path, let reason): "cannot read \(path): \(reason)"
        case .unexpectedShape(let what): "unexpected model shape: \(what)"
        }
    }
}

/// The parts of an ONNX model (`onnx.proto`'s ModelProto) the interpreter needs: the graph's
/// nodes in order, its initializers (with tensors kept in an external data file read from the
/// model's folder) and the names of its input and output.
struct ONNXModel {
    struct Node {
        var opType: String
        var inputs: [String]
        var outputs: [String]
        var attributes: [String: Attribute]
    }

    enum Attribute: Equatable {
        case int(Int64)
        case ints([Int64])
        case float(Float)
        case other
    }

    /// A constant tensor. `values` holds every element as Float (float32, uint8 and int8 tensors:
    /// weights, scales and zero points); `integers` the elements of an int64 tensor.
    struct Tensor {
        var dims: [Int]
        var values: [Float]
        var integers: [Int64]
        var dataType: Int
    }

    // onnx.proto's TensorProto.DataType values the interpreter reads.
    static let float32 = 1
    static let uint8 = 2
    static let int8 = 3
    static let int64 = 7

    var nodes: [Node] = []
    var initializers: [String: Tensor] = [:]
    var inputNames: [String] = []
    var outputNames: [String] = []
    /// The declared shapes of the graph's inputs (a dimension without a fixed size is -1).
    var inputShapes: [String: [Int]] = [:]

    /// Reads `file`; tensors stored outside it are read from files beside it.
    init(contentsOf file: URL) throws(ONNXModelError) {
        let bytes: Data
        do {
            bytes = try Data(contentsOf: file, options: .mappedIfSafe)
        } catch {
            throw .unreadable(path: file.path, reason: "\(error)")
        }
        let folder = file.deletingLastPathComponent()
        var external: [String: Data] = [:]
        let parsed = bytes.withUnsafeBytes { buffer in
            Result { () throws(ONNXModelError) in try Self.parse(buffer) }
        }
        let graph = try parsed.get()
        nodes = graph.nodes
        inputNames = graph.inputNames
        inputShapes = graph.inputShapes
        outputNames = graph.outputNames
        for (name, raw) in graph.initializers {
            var data = raw.rawData
            if let location = raw.externalLocation {
                guard !location.contains("/"), !location.hasPrefix(".") else {
                    throw .unsupported("external data outside the model's folder: \(location)")
                }
                if external[location] == nil {
                    let path = folder.appendingPathComponent(location)
                    do {
                        external[location] = try Data(contentsOf: path, options: .mappedIfSafe)
                    } catch {
                        throw .unreadable(path: path.path, reason: "\(error)")
                    }
                }
                let file = external[location]!
                guard raw.externalOffset >= 0, raw.externalLength >= 0,
                    raw.externalOffset + raw.externalLength <= file.count
                else { throw .malformed("tensor \(name) lies outside \(location)") }
                data = [UInt8](
                    file[
                        (file.startIndex + raw.externalOffset)..<(file.startIndex + raw.externalOffset
                            + raw.externalLength)])
            }
            initializers[name] = try raw.decoded(data)
        }
    }

    /// The graph of a ModelProto, its initializers not yet decoded.
    private struct ParsedGraph {
        var nodes: [Node] = []
        var initializers: [(name: String, tensor: RawTensor)] = []
        var inputNames: [String] = []
        var inputShapes: [String: [Int]] = [:]
        var outputNames: [String] = []
    }

    private static func parse(_ buffer: UnsafeRawBufferPointer) throws(ONNXModelError) -> ParsedGraph {
        var result = ParsedGraph()
        var model = ProtobufReader(buffer)
        var sawGraph = false
        while let field = try model.nextField() {
            guard field.number == 7, field.wireType == .lengthDelimited else {
                try model.skip(field.wireType)
                continue
            }
            sawGraph = true
            var graph = try model.message()
            while let field = try graph.nextField() {
                switch (field.number, field.wireType) {
                case (1, .lengthDelimited): result.nodes.append(try node(try graph.message()))
                case (5, .lengthDelimited):
                    let tensor = try RawTensor(try graph.message())
                    result.initializers.append((tensor.name, tensor))
                case (11, .lengthDelimited):
                    let (name, shape) = try valueInfo(try graph.message())
                    result.inputNames.append(name)
                    result.inputShapes[name] = shape
                case (12, .lengthDelimited): result.outputNames.append(try valueInfo(try graph.message()).name)
                default: try graph.skip(field.wireType)
                }
            }
        }
        guard sawGraph else { throw .malformed("no graph") }
        return result
    }

    /// A ValueInfoProto's name and, for a tensor, its dimensions (-1 where not fixed).
    private static func valueInfo(_ message: ProtobufReader) throws(ONNXModelError) -> (name: String, shape: [Int]) {
        var reader = message
        var name = ""
        var shape: [Int] = []
        while let field = try reader.nextField() {
            switch (field.number, field.wireType) {
            case (1, .lengthDelimited): name = try reader.string()
            case (2, .lengthDelimited):
                // TypeProto.tensor_type (1) → TypeProto.Tensor.shape (2) → TensorShapeProto.dim (1)
                // → Dimension.dim_value (1).
                var type = try reader.message()
                while let field = try type.nextField() {
                    guard field.number == 1, field.wireType == .lengthDelimited else {
                        try type.skip(field.wireType)
                        continue
                    }
                    var tensor = try type.message()
                    while let field = try tensor.nextField() {
                        guard field.number == 2, field.wireType == .lengthDelimited else {
                            try tensor.skip(field.wireType)
                            continue
                        }
                        var dims = try tensor.message()
                        while let field = try dims.nextField() {
                            guard field.number == 1, field.wireType == .lengthDelimited else {
                                try dims.skip(field.wireType)
                                continue
                            }
                            var dimension = try dims.message()
                            var value = -1
                            while let field = try dimension.nextField() {
                                if field.number == 1, field.wireType == .varint {
                                    value = Int(truncatingIfNeeded: Int64(bitPattern: try dimension.varint()))
                                } else {
                                    try dimension.skip(field.wireType)
                                }
                            }
                            shape.append(value)
                        }
                    }
                }
            default: try reader.skip(field.wireType)
            }
        }
        return (name, shape)
    }

    private static func node(_ message: ProtobufReader) throws(ONNXModelError) -> Node {
        var reader = message
        var node = Node(opType: "", inputs: [], outputs: [], attributes: [:])
        while let field = try reader.nextField() {
            switch (field.number, field.wireType) {
            case (1, .lengthDelimited): node.inputs.append(try reader.string())
            case (2, .lengthDelimited): node.outputs.append(try reader.string())
            case (4, .lengthDelimited): node.opType = try reader.string()
            case (5, .lengthDelimited):
                let (name, value) = try attribute(try reader.message())
                node.attributes[name] = value
            default: try reader.skip(field.wireType)
            }
        }
        return node
    }

    private static func attribute(_ message: ProtobufReader) throws(ONNXModelError) -> (String, Attribute) {
        var reader = message
        var name = ""
        var int: Int64?
        var ints: [Int64] = []
        var float: Float?
        while let field = try reader.nextField() {
            switch (field.number, field.wireType) {
            case (1, .lengthDelimited): name = try reader.string()
            case (2, .fixed32):
                let bits = try reader.fixed32()
                float = Float(bitPattern: bits)
            case (3, .varint): int = Int64(bitPattern: try reader.varint())
            case (8, _): ints += try reader.int64s(field.wireType)
            default: try reader.skip(field.wireType)
            }
        }
        if let int { return (name, .int(int)) }
        if let float { return (name, .float(float)) }
        if !ints.isEmpty { return (name, .ints(ints)) }
        return (name, .other)
    }

    /// An initializer as read, before its bytes are decoded.
    private struct RawTensor {
        var name = ""
        var dims: [Int64] = []
        var dataType = 0
        var rawData: [UInt8] = []
        var externalLocation: String?
        var externalOffset = 0
        var externalLength = -1

        init(_ message: ProtobufReader) throws(ONNXModelError) {
            var reader = message
            while let field = try reader.nextField() {
                switch (field.number, field.wireType) {
                case (1, _): dims += try reader.int64s(field.wireType)
                case (2, .varint): dataType = Int(try reader.varint())
                case (8, .lengthDelimited): name = try reader.string()
                case (9, .lengthDelimited): rawData = try reader.data()
                case (4, _), (5, _), (7, _):
                    throw .unsupported("typed data fields (only raw_data and external data are read)")
                case (13, .lengthDelimited):
                    var entry = try reader.message()
                    var key = ""
                    var value = ""
                    while let field = try entry.nextField() {
                        switch (field.number, field.wireType) {
                        case (1, .lengthDelimited): key = try entry.string()
                        case (2, .lengthDelimited): value = try entry.string()
                        default: try entry.skip(field.wireType)
                        }
                    }
                    switch key {
                    case "location": externalLocation = value
                    case "offset": externalOffset = Int(value) ?? -1
                    case "length": externalLength = Int(value) ?? -1
                    default: break
                    }
                default: try reader.skip(field.wireType)
                }
            }
        }

        func decoded(_ data: [UInt8]) throws(ONNXModelError) -> Tensor {
            guard dims.allSatisfy({ $0 >= 0 && $0 < 1 << 31 }) else {
                throw .malformed("tensor \(name)'s dims \(dims)")
            }
            let shape = dims.map(Int.init)
            let count = shape.reduce(1, *)
            let width =
                switch dataType {
                case ONNXModel.float32: 4
                case ONNXModel.uint8, ONNXModel.int8: 1
                case ONNXModel.int64: 8
                default: 0
                }
            guard width > 0 else { throw .unsupported("tensor \(name) of data type \(dataType)") }
            guard data.count == count * width else {
                throw .malformed("tensor \(name): \(data.count) bytes for \(count) elements of \(width)")
            }
            var values: [Float] = []
            var integers: [Int64] = []
            data.withUnsafeBytes { bytes in
                switch dataType {
                case ONNXModel.float32:
                    values = (0..<count).map {
                        Float(
                            bitPattern: UInt32(
                                littleEndian: bytes.loadUnaligned(fromByteOffset: $0 * 4, as: UInt32.self)))
                    }
                case ONNXModel.uint8: values = bytes.map { Float($0) }
                case ONNXModel.int8: values = bytes.map { Float(Int8(bitPattern: $0)) }
                default:
                    integers = (0..<count).map {
                        Int64(littleEndian: bytes.loadUnaligned(fromByteOffset: $0 * 8, as: Int64.self))
                    }
                }
            }
            return Tensor(dims: shape, values: values, integers: integers, dataType: dataType)
        }
    }
}
