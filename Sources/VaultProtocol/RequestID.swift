/// A request's `id`, echoed in its response: a string, an integer, or absent/null.
public enum RequestID: Codable, Sendable, Equatable, CustomStringConvertible {
    case string(String)
    case number(Int64)
    case null

    public init(from decoder: Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let number = try? container.decode(Int64.self) {
            self = .number(number)
        } else if let string = try? container.decode(String.self) {
            self = .string(string)
        } else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "id must be a string, an integer or null")
        }
    }

    public func encode(to encoder: Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .string(let value): try container.encode(value)
        case .number(let value): try container.encode(value)
        case .null: try container.encodeNil()
        }
    }

    public var description: String {
        switch self {
        case .string(let value): value
        case .number(let value): String(value)
        case .null: "null"
        }
    }
}
