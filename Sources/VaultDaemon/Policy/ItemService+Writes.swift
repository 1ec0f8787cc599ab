import VaultCore
import VaultCrypto
import VaultProtocol

/// Writes: store, update, create, move, delete. Writing needs no rule (rules say who may read);
/// anything that hands an existing secret out under another name (a move) passes a read's check.
extension ItemService {
    /// `add` (refusing an existing key) or `set` (inserting or replacing) of `key`; `confirm`
    /// marks the item as needing the approver for every read.
    func write(_ key: ItemKey, secret: SecretBytes, changes itemChanges: ItemChanges, replacing: Bool, confirm: Bool, by request: ItemRequest) throws -> ItemInfo {
        try audited(replacing ? .set : .add, key, by: request) { _ in
            let info = try store.perform { store in
                replacing ? try store.set(key, secret: secret, changes: itemChanges) : try store.add(key, secret: secret, changes: itemChanges)
            }
            if confirm { _ = try access.updateRules(key) { $0.confirm = true } }
            changes.postWrite(info, added: !replacing)
            logger.info(replacing ? "set an item" : "added an item", naming: key.description)
            return info
        }
    }

    /// Changes the existing item under `key` in `scope`: `change` gets it, alone on the store,
    /// and returns what to store (its secret and changes). `notFound` when there is none.
    func update(_ key: ItemKey, by request: ItemRequest, in scope: Scope, _ change: (Item) throws -> (SecretBytes, ItemChanges)) throws -> ItemInfo {
        try audited(.set, key, by: request) { _ in
            let info = try store.perform { store in
                let item = try Self.existing(key, in: scope, of: store)
                let (secret, itemChanges) = try change(item)
                return try store.set(key, secret: secret, changes: itemChanges)
            }
            changes.post(.changed(info.key, info.kind))
            logger.info("changed an item", naming: key.description)
            return info
        }
    }

    /// Stores a plain secret under `named`, or, without a name, under the key of the item made
    /// up for exactly `attributes` when `replacing` (the Secret Service's CreateItem with
    /// replace), else under a new made-up key. An existing item of another kind is not
    /// overwritten. Returns the item and whether it replaced one.
    func create(named: ItemKey?, attributes: [String: String], replacing: Bool, secret: SecretBytes, changes itemChanges: ItemChanges, by request: ItemRequest) throws -> (info: ItemInfo, replaced: Bool) {
        try audited(.set, named, by: request) { facts in
            let (info, replaced) = try store.perform { store -> (ItemInfo, Bool) in
                var key = named
                if key == nil, replacing {
                    key = try store.items(matching: attributes).first { $0.key.isAttributeOnly && $0.kind == .secret && $0.attributes == attributes }?.key
                }
                let target = try key ?? ItemKey(service: ItemKey.attributeOnlyService, account: SecureRandom.bytes(16).lowercaseHex)
                var replaced = false
                if key != nil {
                    do {
                        guard try store.get(target).info.kind == .secret else {
                            throw VaultError.permissionDenied("\(target) is not a plain secret (a sign-in session, AWS credentials or vault's own record); change it with vaultctl")
                        }
                        replaced = true
                    } catch VaultError.notFound {}
                }
                return (try store.set(target, secret: secret, changes: itemChanges), replaced)
            }
            facts.item = info.key
            changes.post(replaced ? .changed(info.key, info.kind) : .created(info.key, info.kind))
            logger.info(replaced ? "set an item" : "added an item", naming: info.key.description)
            return (info, replaced)
        }
    }

    /// Moves the item under `key` in `scope` to `target`, with `change` giving its new metadata.
    /// The move hands the secret out under another key, so `caller` must pass the check a read
    /// of the item needs (its rules, or the approver); its rules move with it in the same
    /// exclusive section (replacing any `target` had): no rule stays behind for a program to
    /// escape by renaming. Recorded as a set of `key` when refused, else as a delete of `key`
    /// and a set of `target`.
    func move(_ key: ItemKey, to target: ItemKey, by request: ItemRequest, in scope: Scope, _ change: (Item) -> ItemChanges) throws -> ItemInfo {
        let info = try audited(.set, key, by: request) { facts in
            try decide(key, op: .set, by: request, &facts)
            let info = try store.perform { store in
                let item = try Self.existing(key, in: scope, of: store)
                let info: ItemInfo
                do {
                    info = try store.add(target, secret: item.secret, changes: change(item))
                } catch VaultError.duplicate {
                    throw VaultError.invalidInput("an item with that service and username exists already: delete it first")
                }
                try store.delete(key)
                try AccessRules.move(key, to: target, in: store)
                return info
            }
            facts.movedTo = target
            return info
        }
        changes.post(.deleted(key))
        changes.post(.created(info.key, info.kind))
        logger.info("moved an item", naming: "\(key) to \(target)")
        return info
    }

    /// Removes the item under `key` in `scope` and its access rules, in one exclusive section
    /// (no request sees the item gone and its rules left): an item made again under the name
    /// starts unguarded.
    func delete(_ key: ItemKey, by request: ItemRequest, in scope: Scope) throws {
        try audited(.delete, key, by: request) { _ in
            try store.perform { store in
                if scope != .everyKind { _ = try Self.existing(key, in: scope, of: store) }
                try store.delete(key)
                try AccessRules.move(key, to: nil, in: store)
            }
            changes.post(.deleted(key))
            logger.info("deleted an item", naming: key.description)
        }
    }

    /// The item under `key` if `scope` shows it; `notFound` otherwise.
    static func existing(_ key: ItemKey, in scope: Scope, of store: any VaultStore) throws -> Item {
        let item = try store.get(key)
        guard scope.shows(item.info.kind) else { throw VaultError.notFound(key) }
        return item
    }
}
