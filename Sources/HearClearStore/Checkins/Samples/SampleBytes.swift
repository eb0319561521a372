/// The byte-level pieces of ``SampleCodec``: LEB128 varints, zigzag signs and blocks of
/// bit-packed values.

/// Zigzag: 0, −1, 1, −2, 2 … as 0, 1, 2, 3, 4 …, so that small values of either sign take few bits.
@inline(__always)
func zigzag(_ value: Int64) -> UInt64 {
    UInt64(bitPattern: (value << 1) ^ (value >> 63))
}

@inline(__always)
func unzigzag(_ value: UInt64) -> Int64 {
    Int64(bitPattern: value >> 1) ^ -Int64(bitPattern: value & 1)
}

/// Appends to a byte array.
struct SampleByteWriter {
    private(set) var bytes: [UInt8] = []

    mutating func byte(_ value: UInt8) { bytes.append(value) }

    /// LEB128: seven bits a byte, low first, the high bit set on all but the last.
    mutating func varint(_ value: UInt64) {
        var rest = value
        while rest >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: rest) | 0x80)
            rest >>= 7
        }
        bytes.append(UInt8(rest))
    }

    mutating func signed(_ value: Int64) { varint(zigzag(value)) }

    /// The IEEE 754 bits of `value`, big-endian (as PostgreSQL's `float4send` writes them).
    mutating func float(_ value: Float) {
        let bits = value.bitPattern
        for shift in stride(from: 24, through: 0, by: -8) { bytes.append(UInt8(truncatingIfNeeded: bits >> shift)) }
    }

    /// `values` in blocks of ``SampleCodec/blockLength``: each block is its minimum (zigzag
    /// varint), its bit width (one byte, 0 … 64) and every value less the minimum in that many
    /// bits, low bits first, padded to a whole byte. A block of equal values costs 2–3 bytes.
    mutating func packed(_ values: [Int64]) {
        var start = 0
        while start < values.count {
            let block = values[start..<min(start + SampleCodec.blockLength, values.count)]
            let minimum = block.min() ?? 0
            let spread = block.reduce(UInt64(0)) { max($0, UInt64(bitPattern: $1 &- minimum)) }
            let width = UInt8(64 - spread.leadingZeroBitCount)
            signed(minimum)
            byte(width)
            let base = bytes.count
            bytes.append(contentsOf: repeatElement(0, count: (block.count * Int(width) + 7) / 8))
            var bitPosition = 0
            for value in block {
                var delta = UInt64(bitPattern: value &- minimum)
                var left = Int(width)
                while left > 0 {
                    let offset = bitPosition & 7
                    let take = min(8 - offset, left)
                    bytes[base + (bitPosition >> 3)] |= UInt8(truncatingIfNeeded: delta & ((1 << take) - 1)) << offset
                    delta >>= take
                    left -= take
                    bitPosition += take
                }
            }
            start += SampleCodec.blockLength
        }
    }
}

/// Reads what ``SampleByteWriter`` wrote, refusing anything short or out of bounds.
struct SampleByteReader {
    private let bytes: [UInt8]
    private var position = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    var isAtEnd: Bool { position == bytes.count }

    mutating func byte() throws -> UInt8 {
        guard position < bytes.count else { throw SampleCodecError.truncated }
        defer { position += 1 }
        return bytes[position]
    }

    mutating func varint() throws -> UInt64 {
        var value: UInt64 = 0
        var shift: UInt64 = 0
        while true {
            let next = try byte()
            guard shift < 64, shift < 63 || next <= 1 else { throw SampleCodecError.malformed("varint over 64 bits") }
            value |= UInt64(next & 0x7F) << shift
            if next & 0x80 == 0 { return value }
            shift += 7
        }
    }

    mutating func signed() throws -> Int64 { unzigzag(try varint()) }

    /// A count no larger than `limit`.
    mutating func count(atMost limit: Int) throws -> Int {
        let value = try varint()
        guard value <= UInt64(limit) else { throw SampleCodecError.malformed("count \(value) over \(limit)") }
        return Int(value)
    }

    mutating func float() throws -> Float {
        var bits: UInt32 = 0
        for _ in 0..<4 { bits = bits << 8 | UInt32(try byte()) }
        return Float(bitPattern: bits)
    }

    /// `count` values written by ``SampleByteWriter/packed(_:)``.
    mutating func packed(count: Int) throws -> [Int64] {
        // Every block takes at least 2 bytes: a corrupt count is refused before it is allocated.
        guard (count + SampleCodec.blockLength - 1) / SampleCodec.blockLength * 2 <= bytes.count - position else {
            throw SampleCodecError.truncated
        }
        var values: [Int64] = []
        values.reserveCapacity(count)
        while values.count < count {
            let length = min(SampleCodec.blockLength, count - values.count)
            let minimum = try signed()
            let width = Int(try byte())
            guard width <= 64 else { throw SampleCodecError.malformed("bit width \(width)") }
            guard width > 0 else {
                values.append(contentsOf: repeatElement(minimum, count: length))
                continue
            }
            let byteCount = (length * width + 7) / 8
            guard bytes.count - position >= byteCount else { throw SampleCodecError.truncated }
            var bitPosition = position * 8
            for _ in 0..<length {
                var delta: UInt64 = 0
                var got = 0
                while got < width {
                    let index = bitPosition >> 3
                    let offset = bitPosition & 7
                    let take = min(8 - offset, width - got)
                    let piece = UInt64(bytes[index] >> offset) & ((1 << take) - 1)
                    delta |= piece << got
                    got += take
                    bitPosition += take
                }
                values.append(minimum &+ Int64(bitPattern: delta))
            }
            position += byteCount
        }
        return values
    }
}
