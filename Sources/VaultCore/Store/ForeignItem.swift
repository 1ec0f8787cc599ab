/// An item of another helper's schema (`ForeignSchema`), without its secret.
public struct ForeignItem: Sendable, Equatable {
    /// Its `xdg:schema`, e.g. `io.docker.Credentials`.
    public var schemaName: String
    /// Its key attributes only, every one checked.
    public var attributes: [String: String]
    /// Its label; empty when the stored one is over 1024 bytes or holds a control character.
    public var label: String
    /// Milliseconds since 1970.
    public var created: Int64
    public var modified: Int64

    public init(schemaName: String, attributes: [String: String], label: String, created: Int64, modified: Int64) {
        self.schemaName = schemaName
        self.attributes = attributes
        self.label = label
        self.created = created
        self.modified = modified
    }
}

extension ForeignItem {
    /// Its key attributes as `ForeignItemStore` matches them: every one of `schema`'s, nil for
    /// those it lacks, so exactly this item (and its duplicates) match.
    public func exactly(in schema: ForeignSchema) -> [String: String?] {
        Dictionary(uniqueKeysWithValues: schema.keyAttributes.map { ($0, attributes[$0]) })
    }
}
