/// An optional field of a v2 body written as `null` when it has no value, where Swift's
/// synthesized encoding would leave the key out: clients can rely on every key being present
/// (docs/ARCHITECTURE.md, "API v2 rules"). A plain optional in a body is left out when nil.
@propertyWrapper
struct KeepsNull<Value: Encodable>: Encodable {
    var wrappedValue: Value?

    init(wrappedValue: Value?) {
        self.wrappedValue = wrappedValue
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        if let wrappedValue { try container.encode(wrappedValue) } else { try container.encodeNil() }
    }
}

extension KeepsNull: Equatable where Value: Equatable {}
extension KeepsNull: Sendable where Value: Sendable {}
