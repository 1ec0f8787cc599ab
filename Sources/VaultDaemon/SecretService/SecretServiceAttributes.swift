import VaultCore

/// How an item's Secret Service attributes are kept in the vault. An item whose `service` and
/// `username` make a valid key is vault's item of that key, keeping its other attributes. An
/// item without them (git's, Docker's) gets a made-up key; a lone `service` or `username` of
/// its (docker-credential-secretservice writes `username`) is kept under a reserved name, since
/// stores refuse those two names among an item's other attributes (`ItemAttributes`).
enum SecretServiceAttributes {
    /// What a lone `service` or `username` is kept as.
    static let storedNames = ["service": "vault.key.service", "username": "vault.key.username"]
    static let reservedNames = Set(storedNames.values)

    /// The `a{ss}` a client sent, at most `ItemLimits.maxAttributes` pairs (checked before
    /// anything is copied), each name once.
    static func parse(_ value: BusVariant) throws(BusError) -> [String: String] {
        guard value.isOf("a{ss}") else { throw .invalidArgs("attributes are a{ss}") }
        guard value.childCount <= ItemLimits.maxAttributes else {
            throw .invalidArgs("\(value.childCount) attributes; the limit is \(ItemLimits.maxAttributes)")
        }
        guard let attributes = value.stringDictionary else { throw .invalidArgs("an attribute name appears twice") }
        return attributes
    }

    /// The key `attributes` name (nil: the store makes one up) and the attributes the item keeps.
    static func split(_ attributes: [String: String]) throws(BusError) -> (key: ItemKey?, stored: [String: String]) {
        if let reserved = attributes.keys.first(where: reservedNames.contains) {
            throw .invalidArgs("the attribute name '\(reserved)' is reserved by vault")
        }
        if let service = attributes["service"], let username = attributes["username"], service != ItemKey.attributeOnlyService,
           let key = try? ItemKey(service: service, account: username) {
            return (key, attributes.filter { !ItemAttributes.keyNames.contains($0.key) })
        }
        return (nil, renamed(attributes, storedNames))
    }

    /// The attributes clients see.
    static func exported(_ info: ItemInfo) -> [String: String] {
        guard info.key.isAttributeOnly else { return info.secretServiceAttributes }
        return renamed(info.attributes, Dictionary(uniqueKeysWithValues: storedNames.map { ($0.value, $0.key) }))
    }

    /// `query` as the store matches it against items with made-up keys.
    static func storedQuery(_ query: [String: String]) -> [String: String] { renamed(query, storedNames) }

    private static func renamed(_ attributes: [String: String], _ names: [String: String]) -> [String: String] {
        Dictionary(uniqueKeysWithValues: attributes.map { (names[$0.key] ?? $0.key, $0.value) })
    }

    /// The visible items (plain secrets) whose attributes include all of `query`, vault's own
    /// keys first, then those with made-up keys, each in the store's order.
    static func items(matching query: [String: String], in store: any VaultStore) throws -> [ItemInfo] {
        let named = try store.items(matching: query).filter { !$0.key.isAttributeOnly }
        let madeUp = try store.items(matching: storedQuery(query)).filter(\.key.isAttributeOnly)
        return (named + madeUp).filter { $0.kind == .secret }
    }
}
