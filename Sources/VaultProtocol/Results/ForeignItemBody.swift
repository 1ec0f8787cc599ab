/// Another helper's item on the wire (`result.foreign`): its `xdg:schema`, key attributes, label
/// and RFC 3339 times. Never a secret.
public struct ForeignItemBody: Codable, Sendable, Equatable {
    public var schema: String
    public var attributes: [String: String]
    public var label: String
    public var created: String
    public var modified: String

    public init(schema: String, attributes: [String: String], label: String, created: String, modified: String) {
        self.schema = schema
        self.attributes = attributes
        self.label = label
        self.created = created
        self.modified = modified
    }
}
