/// An item's key and metadata: everything but the secret. This is what `list` returns.
public struct ItemInfo: Sendable, Equatable {
    public var key: ItemKey
    public var label: String
    public var comment: String
    public var kind: ItemKind
    /// Milliseconds since the Unix epoch, UTC.
    public var created: Int64
    public var modified: Int64
    /// How many other items the store holds under the same key: in the Secret Service another
    /// tool (Python keyring adds an `application` attribute) may have written its own. vault reads
    /// the newest and writes and deletes all of them. Always 0 in the file store.
    public var duplicates: Int
    /// Its Secret Service attributes other than the key's `service` and `username`
    /// (`ItemAttributes`); empty for items vault's own commands wrote.
    public var attributes: [String: String]
    /// The secret's content type as a Secret Service client gave it.
    public var contentType: String

    public init(
        key: ItemKey, label: String, comment: String, kind: ItemKind, created: Int64, modified: Int64, duplicates: Int = 0,
        attributes: [String: String] = [:], contentType: String = ItemAttributes.defaultContentType
    ) {
        self.duplicates = duplicates
        self.attributes = attributes
        self.contentType = contentType
        self.key = key
        self.label = label
        self.comment = comment
        self.kind = kind
        self.created = created
        self.modified = modified
    }
}
