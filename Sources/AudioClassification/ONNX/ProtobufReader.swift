/// Reads Protocol Buffers' wire format (varints, 32- and 64-bit fields, length-delimited fields),
/// enough to walk an ONNX `ModelProto`. Each call checks its bounds and throws instead of reading
/// past the end, so a truncated or foreign file fails to load rather than crashing.
struct ProtobufReader {
    enum WireType: UInt64 {
        case varint = 0
        case fixed64 = 1
        case lengthDelimited = 2
        case fixed32 = 5
    }

    struct Field {
        var number: Int
        var wireType: WireType
    }

    private let bytes: UnsafeRawBufferPointer
    private var position: Int
    private let end: Int

    init(_ bytes: UnsafeRawBufferPointer) {
        self.bytes = bytes
        position = 0
        end = bytes.count
    }

    private init(_ bytes: UnsafeRawBufferPointer, range: Range<Int>) {
        self.bytes = bytes
        position = range.lowerBound
        end = range.upperBound
    }

    var isAtEnd: Bool { position >= end }

    /// The next field's number and wire type; nil at the end.
    mutating func nextField() throws(ONNXModelError) -> Field? {
        guard !isAtEnd else { return nil }
        let key = try varint()
        guard let wireType = WireType(rawValue: key & 7), key >> 3 > 0, key >> 3 <= UInt64(Int32.max) else {
            throw .malformed("field key \(key) at byte \(position)")
        }
        return Field(number: Int(key >> 3), wireType: wireType)
    }

    mutating func varint() throws(ONNXModelError) -> UInt64 {
        var result: UInt64 = 0
        var shift: UInt64 = 0
        while true {
            guard position < end, shift < 64 else { throw .malformed("varint runs past its field at byte \(position)") }
            let byte = bytes[position]
            position += 1
            result |= UInt64(byte & 0x7f) << shift
            if byte & 0x80 == 0 { return result }
            shift += 7
        }
    }

    /// A length-delimited field's bytes as a reader of their own.
    mutating func message() throws(ONNXModelError) -> ProtobufReader {
        let range = try lengthDelimitedRange()
        return ProtobufReader(bytes, range: range)
    }

    mutating func string() throws(ONNXModelError) -> String {
        let range = try lengthDelimitedRange()
        return String(decoding: UnsafeRawBufferPointer(rebasing: bytes[range]), as: UTF8.self)
    }

    /// A length-delimited field's bytes, copied.
    mutating func data() throws(ONNXModelError) -> [UInt8] {
        let range = try lengthDelimitedRange()
        return Array(bytes[range])
    }

    /// A repeated int64 field: one value when not packed, all values of the field when packed.
    mutating func int64s(_ wireType: WireType) throws(ONNXModelError) -> [Int64] {
        switch wireType {
        case .varint: return [Int64(bitPattern: try varint())]
        case .lengthDelimited:
            var packed = try message()
            var values: [Int64] = []
            while !packed.isAtEnd { values.append(Int64(bitPattern: try packed.varint())) }
            return values
        default: throw .malformed("an integer list of wire type \(wireType)")
        }
    }

    /// A fixed32 field's value (little-endian).
    mutating func fixed32() throws(ONNXModelError) -> UInt32 {
        guard end - position >= 4 else { throw .malformed("a field runs past the end at byte \(position)") }
        let value = UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: position, as: UInt32.self))
        position += 4
        return value
    }

    /// Skips a field this reader does not need.
    mutating func skip(_ wireType: WireType) throws(ONNXModelError) {
        switch wireType {
        case .varint: _ = try varint()
        case .fixed64: try advance(8)
        case .fixed32: try advance(4)
        case .lengthDelimited: _ = try lengthDelimitedRange()
        }
    }

    private mutating func advance(_ count: Int) throws(ONNXModelError) {
        guard end - position >= count else { throw .malformed("a field runs past the end at byte \(position)") }
        position += count
    }

    private mutating func lengthDelimitedRange() throws(ONNXModelError) -> Range<Int> {
        let length = try varint()
        guard length <= UInt64(end - position) else {
            throw .malformed("a field of \(length) bytes runs past the end at byte \(position)")
        }
        let range = position..<(position + Int(length))
        position = range.upperBound
        return range
    }
}
