import VaultCore
import VaultCrypto

/// The login collection (org.freedesktop.Secret.Collection) and its items
/// (org.freedesktop.Secret.Item): the vault's items of kind `secret`. Sign-in sessions, AWS
/// credentials and vault's own records are not shown over D-Bus, and cannot be overwritten.
extension SecretServiceProvider {
    func collectionMethod(_ call: BusCall) throws -> BusValue? {
        guard SecretServicePath.isCollection(call.path) else { throw BusError.noSuchObject(call.path) }
        switch call.member {
        case "Delete":
            throw BusError.notSupported("vaultd's collection is the whole vault and cannot be deleted; delete its items")
        case "SearchItems":
            return .tuple([.objectPaths(try search(call.argument(0)))])
        case "CreateItem":
            return try createItem(properties: call.argument(0), secret: call.argument(1), replace: call.argument(2).boolean ?? false, caller: call.sender)
        default:
            throw BusError.notSupported("no method \(call.member)")
        }
    }

    func itemMethod(_ call: BusCall) throws -> BusValue? {
        guard let key = SecretServicePath.key(ofItem: call.path) else { throw BusError.noSuchObject(call.path) }
        switch call.member {
        case "Delete":
            // With its access rules, as the socket's delete: an item made again under the key
            // starts unguarded, and no rule outlives its item.
            try store.perform { store in
                guard try Self.visible(key, in: store) != nil else { throw BusError.noSuchObject(call.path) }
                try store.delete(key)
                try AccessRules.move(key, to: nil, in: store)
            }
            store.recordUse()
            audit(.delete, key, sender: call.sender)
            emitCollectionSignal("ItemDeleted", item: call.path)
            return .tuple([.objectPath(SecretServicePath.none)])
        case "GetSecret":
            let session = try session(call.argument(0).string ?? "", of: call.sender)
            guard let item = try visibleItem(key) else { throw BusError.noSuchObject(call.path) }
            let context = try checkRead(key, op: .get, caller: identity(of: call.sender))
            let secret = try session.encode(item.secret, contentType: item.info.contentType)
            audit(.get, key, result: "ok", context)
            return .tuple([secret])
        case "SetSecret":
            let (secret, contentType) = try secret(in: call.argument(0), caller: call.sender)
            try store.perform { store in
                guard try Self.visible(key, in: store) != nil else { throw BusError.noSuchObject(call.path) }
                try store.set(key, secret: secret, changes: ItemChanges(contentType: contentType))
            }
            store.recordUse()
            audit(.set, key, sender: call.sender)
            emitCollectionSignal("ItemChanged", item: call.path)
            return nil
        default:
            throw BusError.notSupported("no method \(call.member)")
        }
    }

    /// The item under `key` if D-Bus clients may see it (a plain secret); nil when there is none.
    static func visible(_ key: ItemKey, in store: any VaultStore) throws -> Item? {
        do {
            let item = try store.get(key)
            return item.info.kind == .secret ? item : nil
        } catch VaultError.notFound {
            return nil
        }
    }

    func visibleItem(_ key: ItemKey) throws -> Item? {
        store.recordUse()
        defer { store.recordUse() }
        return try store.read { try Self.visible(key, in: $0) }
    }

    /// The paths of the visible items whose attributes include all of `query` (`a{ss}`); none
    /// while the vault is locked (their attributes are encrypted with it).
    func search(_ query: BusVariant) throws -> [String] {
        let attributes = try SecretServiceAttributes.parse(query)
        store.recordUse()
        do {
            return try store.read { try SecretServiceAttributes.items(matching: attributes, in: $0) }.map { SecretServicePath.item($0.key) }
        } catch let error as VaultError where error.code == .locked {
            return []
        }
    }

    /// The secret and its content type in a Secret struct `(oayays)` from `caller`, through
    /// the caller's own session.
    func secret(in secret: BusVariant, caller: String) throws -> (SecretBytes, String) {
        let session = try session(secret.child(0)?.string ?? "", of: caller)
        guard let parametersValue = secret.child(1), let valueValue = secret.child(2), let contentType = secret.child(3)?.string else {
            throw BusError.invalidArgs("a secret is (oayays)")
        }
        // Sizes before copies: parameters are an IV at most, the value the largest secret
        // padded to a whole AES block.
        let parameters = try parametersValue.secretBytes(atMost: 64, "the secret's parameters")
        let value = try valueValue.secretBytes(atMost: ItemLimits.maxSecretBytes + AESCBC.blockSize, "the secret")
        if let problem = ItemAttributes.problem(withContentType: contentType) { throw BusError.invalidArgs(problem) }
        let plaintext = try session.decode(parameters: parameters, value: value)
        guard plaintext.count <= ItemLimits.maxSecretBytes else {
            throw BusError.invalidArgs("the secret is \(plaintext.count) bytes; the limit is \(ItemLimits.maxSecretBytes)")
        }
        return (plaintext, contentType)
    }

    private func createItem(properties: BusVariant, secret: BusVariant, replace: Bool, caller: String) throws -> BusValue {
        guard let properties = properties.variantDictionary(atMost: 64) else { throw BusError.invalidArgs("properties are a{sv}, at most 64 of them") }
        var attributes: [String: String] = [:]
        if let given = properties["org.freedesktop.Secret.Item.Attributes"] {
            attributes = try SecretServiceAttributes.parse(given)
        }
        var label: String?
        if let given = properties["org.freedesktop.Secret.Item.Label"] {
            guard let text = given.string else { throw BusError.invalidArgs("Label is a string of at most \(ItemLimits.maxLabelBytes) bytes") }
            label = text
        }
        let (value, contentType) = try self.secret(in: secret, caller: caller)
        let (named, others) = SecretServiceAttributes.split(attributes)
        if let problem = ItemAttributes.problem(with: others, keyIsMadeUp: named == nil) { throw BusError.invalidArgs(problem) }
        store.recordUse()
        defer { store.recordUse() }
        let (key, existed) = try store.perform { store -> (ItemKey, Bool) in
            var key = named
            if key == nil, replace {
                // Replace semantics for items only attributes name: the one with exactly these.
                key = try SecretServiceAttributes.items(matching: attributes, in: store).first { $0.key.isAttributeOnly && $0.attributes == others }?.key
            }
            let target = try key ?? ItemKey(service: ItemKey.attributeOnlyService, account: SecretServicePath.hex(SecureRandom.bytes(16)))
            var existed = false
            if key != nil {
                do {
                    guard try store.get(target).info.kind == .secret else {
                        throw BusError.accessDenied("\(target) is not a plain secret (a sign-in session, AWS credentials or vault's own record); change it with vaultctl")
                    }
                    existed = true
                } catch VaultError.notFound {}
            }
            try store.set(target, secret: value, changes: ItemChanges(label: label, attributes: others, contentType: contentType))
            return (target, existed)
        }
        audit(.set, key, sender: caller)
        let path = SecretServicePath.item(key)
        emitCollectionSignal(existed ? "ItemChanged" : "ItemCreated", item: path)
        return .tuple([.objectPath(path), .objectPath(SecretServicePath.none)])
    }
}
