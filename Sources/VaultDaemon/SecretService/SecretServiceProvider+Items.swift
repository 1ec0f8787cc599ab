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
        guard let key = SecretServicePath.key(ofItem: call.path), !key.isReserved else { throw BusError.noSuchObject(call.path) }
        do {
            switch call.member {
            case "Delete":
                try items.delete(key, by: identity(of: call.sender), in: .plainSecrets)
                return .tuple([.objectPath(SecretServicePath.none)])
            case "GetSecret":
                let session = try session(call.argument(0).string ?? "", of: call.sender)
                let item = try items.read(key, by: identity(of: call.sender), in: .plainSecrets)
                return .tuple([try session.encode(item.secret, contentType: item.info.contentType)])
            case "SetSecret":
                let (secret, contentType) = try secret(in: call.argument(0), caller: call.sender)
                _ = try items.update(key, by: identity(of: call.sender), in: .plainSecrets) { _ in (secret, ItemChanges(contentType: contentType)) }
                return nil
            default:
                throw BusError.notSupported("no method \(call.member)")
            }
        } catch VaultError.notFound {
            throw BusError.noSuchObject(call.path)
        }
    }

    /// The paths of the visible items whose attributes include all of `query` (`a{ss}`); none
    /// while the vault is locked (their attributes are encrypted with it).
    func search(_ query: BusVariant) throws -> [String] {
        try items.search(try SecretServiceAttributes.parse(query), in: .plainSecrets).map { SecretServicePath.item($0.key) }
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
        let created = try items.create(
            named: named, attributes: others, replacing: replace, secret: value,
            changes: ItemChanges(label: label, attributes: others, contentType: contentType), by: identity(of: caller))
        return .tuple([.objectPath(SecretServicePath.item(created.info.key)), .objectPath(SecretServicePath.none)])
    }
}
