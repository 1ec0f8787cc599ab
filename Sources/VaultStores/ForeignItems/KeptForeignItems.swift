import VaultCore

/// Other helpers' items in a store that keeps Secret Service attributes itself: the file store
/// and the in-memory store, which vaultd's Secret Service provider serves. git-credential-libsecret's
/// and docker-credential-secretservice's items arrive over D-Bus as items with made-up keys
/// (`ItemKey.attributeOnlyService`) and their own attributes, and are found here by those
/// attributes, as in any Secret Service: switching to vault's helpers needs no re-entry.
///
/// They are read and deleted, never written (`setForeignItem` writes nothing): vault's helpers
/// keep their own items in such a store and remove the other helper's copy they replace. Each
/// answer names the vault item (`ForeignItem.itemKey`), so that vaultd applies that item's access
/// rules and deletes it as it deletes any item (its rules with it, D-Bus clients told). Items
/// are hostile input, as in `SecretServiceStore`: only secrets of the schema's names whose key
/// attributes pass `ForeignSchema.problem` match, and only key attributes are answered.
public protocol AttributeKeepingStore: ForeignItemStore {}

extension AttributeKeepingStore {
    public func foreignItems(_ schema: ForeignSchema, matching: [String: String?]) throws -> [ForeignItem] {
        Array(try foreignMatches(schema, matching).prefix(ForeignSchema.maxItems).map(\.item))
    }

    public func foreignItem(_ schema: ForeignSchema, matching: [String: String?]) throws -> (item: ForeignItem, secret: SecretBytes)? {
        for match in try foreignMatches(schema, matching) {
            do {
                return (match.item, try get(match.key).secret)
            } catch VaultError.notFound {
                continue  // gone since it was listed (another process deleted it): the next one
            }
        }
        return nil
    }

    public func setForeignItem(_ schema: ForeignSchema, attributes: [String: String?], label: String, secret: SecretBytes) throws -> [ForeignItem] {
        []
    }

    public func deleteForeignItems(_ schema: ForeignSchema, matching: [String: String?]) throws -> [ForeignItem] {
        let matches = try foreignMatches(schema, matching)
        for match in matches {
            do {
                try delete(match.key)
            } catch VaultError.notFound {
                continue
            }
        }
        return matches.map(\.item)
    }

    /// Every plain secret of `schema` matching `matching` (see `ForeignItemStore`), newest first.
    private func foreignMatches(_ schema: ForeignSchema, _ matching: [String: String?]) throws -> [(key: ItemKey, item: ForeignItem)] {
        try list(service: ItemKey.attributeOnlyService).filter { $0.kind == .secret }.sorted { $0.modified > $1.modified }.compactMap { info in
            let attributes = info.attributes
            guard let name = attributes["xdg:schema"], schema.schemaNames.contains(name) else { return nil }
            for (attribute, value) in matching where attributes[attribute] != value { return nil }
            let key = attributes.filter { schema.keyAttributes.contains($0.key) }
            guard key.allSatisfy({ schema.problem(name: $0.key, value: $0.value) == nil }) else { return nil }
            let label = info.label.utf8.count <= ItemLimits.maxLabelBytes && info.label == info.label.replacingControlCharacters() ? info.label : ""
            return (info.key, ForeignItem(schemaName: name, attributes: key, label: label, created: info.created, modified: info.modified, itemKey: info.key))
        }
    }
}

extension EncryptedFileStore: AttributeKeepingStore {}
extension InMemoryStore: AttributeKeepingStore {}
