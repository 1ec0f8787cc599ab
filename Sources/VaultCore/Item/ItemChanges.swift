/// The metadata a write supplies. `nil` means "keep the current value" on update and
/// "use the default" on insert (label: "SERVICE (ACCOUNT)", comment: empty, kind: secret).
public struct ItemChanges: Sendable, Equatable {
    public var label: String?
    public var comment: String?
    public var kind: ItemKind?
    /// The item's other attributes (`ItemAttributes`), replacing all of them; on insert, none.
    public var attributes: [String: String]?
    /// The secret's content type; on insert, `ItemAttributes.defaultContentType`.
    public var contentType: String?

    public init(
        label: String? = nil, comment: String? = nil, kind: ItemKind? = nil,
        attributes: [String: String]? = nil, contentType: String? = nil
    ) {
        self.label = label
        self.comment = comment
        self.kind = kind
        self.attributes = attributes
        self.contentType = contentType
    }

    /// Checks every value given; `key` is the item written (attribute names depend on it:
    /// `ItemAttributes.problem(with:keyIsMadeUp:)`).
    public func validate(for key: ItemKey? = nil) throws {
        if let label, label.utf8.count > ItemLimits.maxLabelBytes {
            throw VaultError.invalidInput("label is \(label.utf8.count) bytes; the limit is \(ItemLimits.maxLabelBytes)")
        }
        if let label, label.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) {
            throw VaultError.invalidInput("label must not contain control characters")
        }
        if let comment, comment.utf8.count > ItemLimits.maxCommentBytes {
            throw VaultError.invalidInput("comment is \(comment.utf8.count) bytes; the limit is \(ItemLimits.maxCommentBytes)")
        }
        if let attributes, let problem = ItemAttributes.problem(with: attributes, keyIsMadeUp: key?.isAttributeOnly ?? false) { throw VaultError.invalidInput(problem) }
        if let contentType, let problem = ItemAttributes.problem(withContentType: contentType) {
            throw VaultError.invalidInput(problem)
        }
    }

    public static func defaultLabel(for key: ItemKey) -> String { "\(key.service) (\(key.account))" }
}
