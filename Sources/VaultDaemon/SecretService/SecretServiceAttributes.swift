import VaultCore

/// How an item's Secret Service attributes are kept in the vault. An item whose `service` and
/// `username` make a valid key is vault's item of that key, keeping its other attributes. An
/// item without them (git's, Docker's) gets a made-up key (`ItemKey.attributeOnlyService`) and
/// keeps all its attributes as they are, a lone `service` or `username` too
/// (docker-credential-secretservice writes `username`).
package enum SecretServiceAttributes {
    /// The `a{ss}` a client sent, at most `ItemLimits.maxAttributes` pairs of names and values
    /// within the item limits (checked before anything is copied), each name once.
    package static func parse(_ value: BusVariant) throws(BusError) -> [String: String] {
        guard value.isOf("a{ss}") else { throw .invalidArgs("attributes are a{ss}") }
        guard value.childCount <= ItemLimits.maxAttributes else {
            throw .invalidArgs("\(value.childCount) attributes; the limit is \(ItemLimits.maxAttributes)")
        }
        return try value.stringDictionary(nameBytes: ItemLimits.maxAttributeNameBytes, valueBytes: ItemLimits.maxAttributeValueBytes)
    }

    /// The key `attributes` name (nil: the store makes one up) and the attributes the item keeps.
    static func split(_ attributes: [String: String]) -> (key: ItemKey?, stored: [String: String]) {
        if let service = attributes["service"], let username = attributes["username"], service != ItemKey.attributeOnlyService,
           let key = try? ItemKey(service: service, account: username) {
            return (key, attributes.filter { !ItemAttributes.keyNames.contains($0.key) })
        }
        return (nil, attributes)
    }

    /// The attributes clients see.
    static func exported(_ info: ItemInfo) -> [String: String] { info.secretServiceAttributes }

    /// The visible items (plain secrets) whose attributes include all of `query`, in the store's order.
    static func items(matching query: [String: String], in store: any VaultStore) throws -> [ItemInfo] {
        try store.items(matching: query).filter { $0.kind == .secret }
    }
}
