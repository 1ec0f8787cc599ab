/// `foreign_list`, `foreign_get` and `foreign_delete`: a schema (`git`, `docker`) and the key
/// attributes to match, each a string (the item has it with that value) or null (it has none).
public struct ForeignQuery: Codable, Sendable, Equatable {
    public var schema: String
    public var attributes: [String: String?]

    public init(schema: String, attributes: [String: String?]) {
        self.schema = schema
        self.attributes = attributes
    }
}
