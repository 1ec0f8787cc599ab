/// A store that also keeps other credential helpers' items (`ForeignSchema`): the Secret
/// Service, and the stores vaultd's own Secret Service provider keeps them in (read and deleted
/// there, never written: `AttributeKeepingStore`). The daemon asks for this capability instead
/// of downcasting to a concrete store; a store without it keeps no such items.
///
/// `matching` names items by key attributes: an item matches when it has each attribute given a
/// value with that value, and none of those given as nil. Results are newest first.
public protocol ForeignItemStore: VaultStore {
    /// At most `ForeignSchema.maxItems` matching items, without secrets.
    func foreignItems(_ schema: ForeignSchema, matching: [String: String?]) throws -> [ForeignItem]
    /// The newest matching item with its secret; nil when none matches.
    func foreignItem(_ schema: ForeignSchema, matching: [String: String?]) throws -> (item: ForeignItem, secret: SecretBytes)?
    /// Gives every item matching `attributes` this secret, or creates one item with the
    /// attributes given a value, `label` and the schema's `writtenSchemaName`. Answers the items
    /// that now hold it.
    func setForeignItem(_ schema: ForeignSchema, attributes: [String: String?], label: String, secret: SecretBytes) throws -> [ForeignItem]
    /// Deletes every matching item and answers them.
    func deleteForeignItems(_ schema: ForeignSchema, matching: [String: String?]) throws -> [ForeignItem]
}
