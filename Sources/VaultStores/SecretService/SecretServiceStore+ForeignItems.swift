import CLibSecret
import VaultCore

/// Other helpers' items (`ForeignSchema`): git-credential-libsecret's and
/// docker-credential-secretservice's, found by their own attributes in any collection. Each is
/// hostile input: only items of the schema's names whose key attributes pass
/// `ForeignSchema.problem` are matched, only key attributes are answered, and a secret over
/// vault's size limit is refused, never read into an answer.
extension SecretServiceStore: ForeignItemStore {
    public func foreignItems(_ schema: ForeignSchema, matching: [String: String?]) throws -> [ForeignItem] {
        try withService { connection in
            try self.foreignMatches(connection, schema, matching, loadSecrets: false).prefix(ForeignSchema.maxItems).map(\.item)
        }
    }

    public func foreignItem(_ schema: ForeignSchema, matching: [String: String?]) throws -> (item: ForeignItem, secret: SecretBytes)? {
        try withService { connection in
            guard let newest = try self.foreignMatches(connection, schema, matching, loadSecrets: true).first else { return nil }
            if newest.stored.isLocked { throw self.lockedError }
            guard let secret = newest.stored.secret else {
                throw VaultError.locked("the Secret Service returned no secret for a \(newest.item.schemaName) item; its collection may be locked: run 'vaultctl unlock'")
            }
            guard secret.count <= ItemLimits.maxSecretBytes else {
                throw VaultError.tooLarge("a \(newest.item.schemaName) item (label '\(newest.item.label)') holds a secret of \(secret.count) bytes, over vault's limit of \(ItemLimits.maxSecretBytes); vault does not read it")
            }
            return (newest.item, secret)
        }
    }

    public func setForeignItem(_ schema: ForeignSchema, attributes: [String: String?], label: String, secret: SecretBytes) throws -> [ForeignItem] {
        try ItemTable<SecretBytes>.checkSecret(secret)
        try ItemChanges(label: label).validate()
        return try withService { connection in
            let existing = try self.foreignMatches(connection, schema, attributes, loadSecrets: true)
            if existing.isEmpty {
                // Storing into a locked collection would start an unlock prompt: say "locked" instead.
                if try self.defaultCollection(connection).isLocked { throw self.lockedError }
                let stored = try connection.store(attributes.compactMapValues { $0 }, schema: schema.libsecretSchema, alias: "default", label: label, secret: secret)
                if !stored { throw VaultError.unavailable("the Secret Service refused to store a \(schema.writtenSchemaName) item") }
            } else {
                if existing.contains(where: \.stored.isLocked) { throw self.lockedError }
                // Every match, so the other helper reads the new secret whichever item it finds.
                for match in existing where match.stored.secret != secret { try match.stored.setSecret(secret) }
            }
            // Read back: some providers report success and keep nothing.
            let written = try self.foreignMatches(connection, schema, attributes, loadSecrets: true)
            guard !written.isEmpty, written.allSatisfy({ $0.stored.secret == secret }) else {
                throw VaultError.unavailable("the Secret Service accepted the write of a \(schema.writtenSchemaName) item but does not return it")
            }
            return written.map(\.item)
        }
    }

    public func deleteForeignItems(_ schema: ForeignSchema, matching: [String: String?]) throws -> [ForeignItem] {
        try withService { connection in
            let matches = try self.foreignMatches(connection, schema, matching, loadSecrets: false)
            for match in matches { try match.stored.delete() }
            return matches.map(\.item)
        }
    }

    /// A matching item: libsecret's, and what vault answers about it.
    private struct ForeignMatch {
        let stored: LibSecretItem
        let item: ForeignItem
    }

    /// Every item of `schema` matching `matching` (see `ForeignItemStore`), newest first.
    private func foreignMatches(_ connection: SecretServiceConnection, _ schema: ForeignSchema, _ matching: [String: String?], loadSecrets: Bool) throws -> [ForeignMatch] {
        // No schema: the attributes are not vault's, and the name is checked here instead.
        let found = try connection.search(matching.compactMapValues { $0 }, schema: nil, loadSecrets: loadSecrets)
        return found.sorted(by: Self.newestFirst).compactMap { stored in
            guard let attributes = stored.attributes, let name = attributes["xdg:schema"], schema.schemaNames.contains(name) else { return nil }
            for (attribute, value) in matching where attributes[attribute] != value { return nil }
            let key = attributes.filter { schema.keyAttributes.contains($0.key) }
            guard key.allSatisfy({ schema.problem(name: $0.key, value: $0.value) == nil }) else { return nil }
            let label = stored.label.flatMap { label in
                label.utf8.count <= ItemLimits.maxLabelBytes && label == label.replacingControlCharacters() ? label : nil
            } ?? ""
            return ForeignMatch(stored: stored, item: ForeignItem(
                schemaName: name, attributes: key, label: label, created: stored.created * 1000, modified: stored.modified * 1000))
        }
    }
}
