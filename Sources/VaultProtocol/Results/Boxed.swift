/// An optional field of `ResultBody` kept behind a reference. `ResultBody` holds the fields of
/// every operation's result, most of them absent from any one answer; held inline, every copy of
/// a result (a `get`'s answer is copied several times on its way to the socket) copied all of
/// them, about 4,000 instructions a `get` (docs/performance.md, part I). Behind a reference an
/// absent field costs a null word to copy, a present one a retain.
///
/// Coded as the optional it holds: absent when nil (`encodeIfPresent`), absent or null decoded as
/// nil, through the container overloads below, which the synthesized `Codable` conformances pick
/// over the general ones.
@propertyWrapper
public struct Boxed<Value: Sendable>: Sendable {
    private final class Box: Sendable {
        let value: Value
        init(_ value: Value) { self.value = value }
    }

    private var box: Box?

    public init(wrappedValue: Value?) { box = wrappedValue.map(Box.init) }

    public var wrappedValue: Value? {
        get { box?.value }
        set { box = newValue.map(Box.init) }
    }

    /// `$field`: the box itself, to ask `isPresent` of.
    public var projectedValue: Boxed<Value> { self }

    /// Whether a value is held, without copying it out (`result.$status.isPresent`).
    public var isPresent: Bool { box != nil }
}

extension Boxed: Encodable where Value: Encodable {
    public func encode(to encoder: Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(wrappedValue)
    }
}

extension Boxed: Decodable where Value: Decodable {
    public init(from decoder: Decoder) throws {
        let container = try decoder.singleValueContainer()
        self.init(wrappedValue: container.decodeNil() ? nil : try container.decode(Value.self))
    }
}

extension KeyedEncodingContainer {
    public mutating func encode<Value: Encodable>(_ field: Boxed<Value>, forKey key: Key) throws {
        try encodeIfPresent(field.wrappedValue, forKey: key)
    }
}

extension KeyedDecodingContainer {
    public func decode<Value: Decodable>(_ type: Boxed<Value>.Type, forKey key: Key) throws -> Boxed<Value> {
        Boxed(wrappedValue: try decodeIfPresent(Value.self, forKey: key))
    }
}
