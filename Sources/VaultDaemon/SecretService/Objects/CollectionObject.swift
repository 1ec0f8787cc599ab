import VaultCore

/// The login collection (org.freedesktop.Secret.Collection at /org/freedesktop/secrets/collection/login,
/// also reached by the aliases `default` and `login`): the vault's items of kind `secret`. Sign-in
/// sessions, AWS credentials and vault's own records are not shown over D-Bus. It is the whole
/// vault: it cannot be deleted or renamed.
struct CollectionObject: BusObject {
    enum Method: String, CaseIterable {
        case delete = "Delete"
        case searchItems = "SearchItems"
        case createItem = "CreateItem"
    }

    static let interface = "org.freedesktop.Secret.Collection"

    let items: ItemService
    let callers: CallerRegistry
    let sessions: SessionObject

    func call(_ method: Method, _ request: BusRequest) throws -> BusReply {
        guard SecretServicePath.isCollection(request.path) else { throw BusError.noSuchObject(request.path) }
        switch method {
        case .delete:
            throw BusError.notSupported("vaultd's collection is the whole vault and cannot be deleted; delete its items")
        case .searchItems:
            return BusReply(.tuple([.objectPaths(try search(request.argument(0)))]))
        case .createItem:
            return BusReply(try createItem(properties: request.argument(0), secret: request.argument(1),
                                           replace: request.argument(2).boolean ?? false, request: request))
        }
    }

    func properties(at path: String) throws -> [(String, BusValue)] {
        guard SecretServicePath.isCollection(path) else { throw BusError.noSuchObject(path) }
        let locked = try items.store.read { $0.status().isLocked }
        let infos = locked ? [] : try items.search([:], in: .plainSecrets)
        return [
            ("Items", .objectPaths(infos.map { SecretServicePath.item($0.key) })),
            ("Label", .string("Login")),
            ("Locked", .boolean(locked)),
            ("Created", .uint64(UInt64(max(0, infos.map(\.created).min() ?? 0) / 1000))),
            ("Modified", .uint64(UInt64(max(0, infos.map(\.modified).max() ?? 0) / 1000))),
        ]
    }

    func setProperty(_ name: String, to value: BusVariant, at path: String, for request: BusRequest) throws {
        throw BusError.notSupported("vaultd's collection is the whole vault: its \(name) cannot be changed")
    }

    /// The paths of the visible items whose attributes include all of `query` (`a{ss}`); none
    /// while the vault is locked (their attributes are encrypted with it).
    func search(_ query: BusVariant) throws -> [String] {
        try items.search(try SecretServiceAttributes.parse(query), in: .plainSecrets).map { SecretServicePath.item($0.key) }
    }

    private func createItem(properties: BusVariant, secret: BusVariant, replace: Bool, request: BusRequest) throws -> BusValue {
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
        let (value, contentType) = try sessions.secret(in: secret, from: request.sender)
        let (named, others) = SecretServiceAttributes.split(attributes)
        if let problem = ItemAttributes.problem(with: others, keyIsMadeUp: named == nil) { throw BusError.invalidArgs(problem) }
        let created = try items.create(
            named: named, attributes: others, replacing: replace, secret: value,
            changes: ItemChanges(label: label, attributes: others, contentType: contentType), by: callers.asking(request))
        return .tuple([.objectPath(SecretServicePath.item(created.info.key)), .objectPath(SecretServicePath.none)])
    }
}
