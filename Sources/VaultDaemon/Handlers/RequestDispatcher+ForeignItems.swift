import VaultCore
import VaultProtocol

/// foreign_list, foreign_get, foreign_set, foreign_delete: other helpers' items in the Secret
/// Service, or in vault's own store when vaultd serves the Secret Service (`ForeignItemStore`;
/// found and deleted there, never written). A store without them answers as one that holds none:
/// empty lists, no item, nothing written.
extension RequestDispatcher {
    func foreignList(_ query: ForeignQuery) throws -> ResultBody {
        let schema = try checked(query)
        let found = try store.read { store in try (store as? any ForeignItemStore)?.foreignItems(schema, matching: query.attributes) ?? [] }
        return ResultBody(foreign: found.map(ForeignItemBody.init))
    }

    /// Rules apply under the name the answer gives the item: its schema as service, its account
    /// attribute as account (`vaultctl allow org.freedesktop.Secret.Generic USER PROGRAM`, say).
    func foreignGet(_ query: ForeignQuery, _ asking: ItemRequest) throws -> ResultBody {
        try items.audited(.foreignGet, nil, by: asking) { facts in
            let schema = try checked(query)
            let found = try store.read { store in try (store as? any ForeignItemStore)?.foreignItem(schema, matching: query.attributes) }
            guard let (item, secret) = found else { return ResultBody() }
            let named = try? ItemKey(service: item.schemaName, account: item.attributes[schema.accountAttribute] ?? "")
            if let stored = item.itemKey {
                // An item of vault's own store is guarded by its own rules (set with `allow`, or by
                // an approver's "always" for a D-Bus read), and by rules under the helper's name
                // when it has any (checked, not asked about twice).
                facts.item = stored
                facts.grant = try access.checkRead(stored, op: .foreignGet, caller: asking.caller, reads: asking.reads)
                if let named, try access.rules(of: named) != nil {
                    facts.grant = try access.checkRead(named, op: .foreignGet, caller: asking.caller, reads: asking.reads) ?? facts.grant
                }
            } else if let named {
                facts.item = named
                facts.grant = try access.checkRead(named, op: .foreignGet, caller: asking.caller, reads: asking.reads)
            }
            logger.debug("foreign_get \(schema.rawValue) item")
            var body = ItemBody(
                service: item.schemaName, account: item.attributes[schema.accountAttribute] ?? "", label: item.label, comment: "",
                kind: ItemKind.secret.rawValue, created: Timestamp.rfc3339(milliseconds: item.created),
                modified: Timestamp.rfc3339(milliseconds: item.modified), secret: secret)
            body.attributes = item.attributes
            return ResultBody(item: body)
        }
    }

    func foreignSet(_ write: ForeignWrite, _ asking: ItemRequest) throws -> ResultBody {
        try items.audited(.foreignSet, nil, by: asking) { _ in
            let schema = try ForeignSchema.named(write.schema)
            try schema.validate(write.attributes, writing: true)
            let written = try store.perform { store in
                try (store as? any ForeignItemStore)?.setForeignItem(schema, attributes: write.attributes, label: write.label, secret: write.secret) ?? []
            }
            if !written.isEmpty { logger.info("foreign_set \(schema.rawValue) item (\(written.count) written)") }
            return ResultBody(foreign: written.map(ForeignItemBody.init))
        }
    }

    func foreignDelete(_ query: ForeignQuery, _ asking: ItemRequest) throws -> ResultBody {
        try items.audited(.foreignDelete, nil, by: asking) { _ in
            let schema = try checked(query)
            let listed = try store.read { store in try (store as? any ForeignItemStore)?.foreignItems(schema, matching: query.attributes) ?? [] }
            let deleted: [ForeignItem]
            if listed.contains(where: { $0.itemKey != nil }) {
                // Vault's own items: deleted as any item is (audited, its rules with it, D-Bus
                // clients told).
                for key in listed.compactMap(\.itemKey) {
                    do {
                        try items.delete(key, by: asking, in: .plainSecrets)
                    } catch VaultError.notFound {
                        continue
                    }
                }
                deleted = listed
            } else {
                deleted = try store.perform { store in try (store as? any ForeignItemStore)?.deleteForeignItems(schema, matching: query.attributes) ?? [] }
            }
            if !deleted.isEmpty { logger.info("foreign_delete \(schema.rawValue) items (\(deleted.count))") }
            return ResultBody(foreign: deleted.map(ForeignItemBody.init))
        }
    }

    private func checked(_ query: ForeignQuery) throws -> ForeignSchema {
        let schema = try ForeignSchema.named(query.schema)
        try schema.validate(query.attributes, writing: false)
        return schema
    }
}

extension ForeignItemBody {
    init(_ item: ForeignItem) {
        self.init(schema: item.schemaName, attributes: item.attributes, label: item.label,
                  created: Timestamp.rfc3339(milliseconds: item.created), modified: Timestamp.rfc3339(milliseconds: item.modified))
    }
}
