/// An item's key and metadata: everything but the secret. This is what `list` returns.
public struct ItemInfo: Sendable, Equatable {
    public var key: ItemKey
    public var label: String
    public var comment: String
    public var kind: ItemKind
    /// Milliseconds since the Unix epoch, UTC.
    public var created: Int64
    public var modified: Int64

    public init(key: ItemKey, label: String, comment: String, kind: ItemKind, created: Int64, modified: Int64) {
        self.key = key
        self.label = label
        self.comment = comment
        self.kind = kind
        self.created = created
        self.modified = modified
    }
}
