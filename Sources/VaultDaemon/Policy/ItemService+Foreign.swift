import VaultCore
import VaultProtocol

/// Reading other helpers' items (`ForeignSchema`): in the Secret Service, or in vault's own store
/// when vaultd serves the Secret Service (`ForeignItemStore`). A store without them answers as
/// one that holds none.
extension ItemService {
    /// The items of `schema` matching `matching`, newest first, without secrets: their names
    /// only, so not audited.
    func foreignItems(_ schema: ForeignSchema, matching: [String: String?]) throws -> [ForeignItem] {
        try store.read { store in try (store as? any ForeignItemStore)?.foreignItems(schema, matching: matching) ?? [] }
    }

    /// The newest item of `schema` matching `matching`, with its secret, for `request`; nil when
    /// none matches. Audited as `foreign_get`, whatever the request. The item is found by its
    /// names first and access decided on them; its secret is read only then. Rules apply under
    /// the name the answer gives the item (its schema as service, its account attribute as
    /// account: `vaultctl allow org.freedesktop.Secret.Generic USER PROGRAM`, say); an item of
    /// vault's own store is guarded by its own rules too (set with `allow`, or by an approver's
    /// "always" for a D-Bus read), and by rules under the helper's name when it has any
    /// (checked, not asked about twice).
    func readForeign(_ schema: ForeignSchema, matching: [String: String?], by request: ItemRequest) throws -> (item: ForeignItem, secret: SecretBytes)? {
        try audited(.foreignGet, nil, by: request) { facts in
            guard let item = try foreignItems(schema, matching: matching).first else { return nil }
            let named = try? ItemKey(service: item.schemaName, account: item.attributes[schema.accountAttribute] ?? "")
            if let stored = item.itemKey {
                facts.item = stored
                facts.grant = try access.checkRead(stored, op: .foreignGet, caller: request.caller, reads: request.reads)
                if let named, try access.rules(of: named) != nil {
                    facts.grant = try access.checkRead(named, op: .foreignGet, caller: request.caller, reads: request.reads) ?? facts.grant
                }
            } else if let named {
                facts.item = named
                facts.grant = try access.checkRead(named, op: .foreignGet, caller: request.caller, reads: request.reads)
            }
            // Exactly the item decided on: another that matches now (written meanwhile) is not it.
            let found = try store.read { store in try (store as? any ForeignItemStore)?.foreignItem(schema, matching: item.exactly(in: schema)) }
            guard let (read, secret) = found else { return nil }  // gone since it was found
            guard read.schemaName == item.schemaName, read.attributes == item.attributes, read.itemKey == item.itemKey else {
                throw VaultError.unavailable("the \(schema.rawValue) item changed while it was being read; try again")
            }
            logger.debug("foreign_get \(schema.rawValue) item")
            return (read, secret)
        }
    }
}
