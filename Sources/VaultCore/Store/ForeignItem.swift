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
    /// The key of the vault item it is, when vault's own store keeps it (`AttributeKeepingStore`):
    /// the name its access rules are kept under. nil for an item of another Secret Service.
    public var itemKey: ItemKey?

    public init(schemaName: String, attributes: [String: String], label: String, created: Int64, modified: Int64, itemKey: ItemKey? = nil) {
        self.schemaName = schemaName
        self.attributes = attributes
        self.label = label
        self.created = created
        self.modified = modified
        self.itemKey = itemKey
    }
}

extension ForeignItem {
    /// Its key attributes as `ForeignItemStore` matches them: every one of `schema`'s, nil for
    /// those it lacks, so exactly this item (and its duplicates) match.
    public func exactly(in schema: ForeignSchema) -> [String: String?] {
        Dictionary(uniqueKeysWithValues: schema.keyAttributes.map { ($0, attributes[$0]) })
    }
}
