import NIOCore
import PostgresNIO

/// A one-dimensional PostgreSQL array whose elements may be NULL, in the binary format
/// (PostgresNIO encodes `[Element]` but not `[Element?]`): what ingest's grouped statement binds
/// for a column some rows leave empty ("Check-ins written in groups", docs/ARCHITECTURE.md).
struct NullableArray<Element: PostgresArrayEncodable & PostgresNonThrowingEncodable>: PostgresNonThrowingEncodable,
    PostgresDynamicTypeEncodable
{
    var elements: [Element?]

    init(_ elements: [Element?]) { self.elements = elements }

    static var psqlType: PostgresDataType { Element.psqlArrayType }
    static var psqlFormat: PostgresFormat { .binary }

    func encode<JSONEncoder: PostgresJSONEncoder>(
        into buffer: inout ByteBuffer, context: PostgresEncodingContext<JSONEncoder>
    ) {
        // The header of array_recv: dimensions, whether any element is NULL, the element's type.
        buffer.writeInteger(elements.isEmpty ? 0 : 1, as: Int32.self)
        buffer.writeInteger(elements.contains { $0 == nil } ? 1 : 0, as: Int32.self)
        buffer.writeInteger(Element.psqlType.rawValue)
        guard !elements.isEmpty else { return }
        // The one dimension: its length and lower bound.
        buffer.writeInteger(Int32(elements.count), as: Int32.self)
        buffer.writeInteger(1, as: Int32.self)
        for element in elements {
            guard let element else {
                buffer.writeInteger(-1, as: Int32.self)
                continue
            }
            // Each element: its length in bytes, then its value.
            let lengthIndex = buffer.writerIndex
            buffer.writeInteger(0, as: Int32.self)
            let start = buffer.writerIndex
            element.encode(into: &buffer, context: context)
            buffer.setInteger(Int32(buffer.writerIndex - start), at: lengthIndex, as: Int32.self)
        }
    }
}
