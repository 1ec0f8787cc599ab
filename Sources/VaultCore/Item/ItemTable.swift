/// The Keychain rules over a dictionary, shared by the stores that keep their items in memory.
/// `Payload` is what a store keeps per item: the secret itself, or its ciphertext.
public struct ItemTable<Payload: Sendable>: Sendable {
    public struct Entry: Sendable {
        public var info: ItemInfo
        public var payload: Payload
    }

    public private(set) var entries: [ItemKey: Entry] = [:]
    /// The keys in order, for paged listing: sorted on first use, replaced (not changed) by every
    /// mutation, so a copy of the table keeps the order that matches its own entries.
    private var order = SortedKeys()

    public init() {}

    public var count: Int { entries.count }

    public func entry(_ key: ItemKey) throws -> Entry {
        guard let entry = entries[key] else { throw VaultError.notFound(key) }
        return entry
    }

    /// The metadata a write of `key` would leave: a new item's defaults, or the existing item's
    /// values overlaid with `changes`. With `mustBeNew`, an existing key is a `.duplicate` error.
    /// `now` is milliseconds since the epoch.
    public func metadataForWrite(
        _ key: ItemKey, changes: ItemChanges, mustBeNew: Bool, now: Int64
    ) throws -> ItemInfo {
        try changes.validate(for: key)
        guard let existing = entries[key] else {
            return ItemInfo(
                key: key, label: changes.label ?? ItemChanges.defaultLabel(for: key),
                comment: changes.comment ?? "", kind: changes.kind ?? .secret, created: now, modified: now,
                attributes: changes.attributes ?? [:], contentType: changes.contentType ?? ItemAttributes.defaultContentType)
        }
        if mustBeNew { throw VaultError.duplicate(key) }
        var info = existing.info
        info.label = changes.label ?? info.label
        info.comment = changes.comment ?? info.comment
        info.kind = changes.kind ?? info.kind
        info.attributes = changes.attributes ?? info.attributes
        info.contentType = changes.contentType ?? info.contentType
        info.modified = max(now, info.created)
        return info
    }

    /// Inserts or updates (see `metadataForWrite`).
    public mutating func write(
        _ key: ItemKey, payload: Payload, changes: ItemChanges, mustBeNew: Bool, now: Int64
    ) throws -> ItemInfo {
        let info = try metadataForWrite(key, changes: changes, mustBeNew: mustBeNew, now: now)
        entries[key] = Entry(info: info, payload: payload)
        order = SortedKeys()
        return info
    }

    /// Puts an entry back exactly as it was read (loading a file).
    public mutating func restore(_ info: ItemInfo, payload: Payload) {
        entries[info.key] = Entry(info: info, payload: payload)
        order = SortedKeys()
    }

    public mutating func remove(_ key: ItemKey) throws -> Entry {
        guard let entry = entries.removeValue(forKey: key) else { throw VaultError.notFound(key) }
        order = SortedKeys()
        return entry
    }

    public func list(service: String?) -> [ItemInfo] {
        entries.values.lazy.map(\.info).filter { service == nil || $0.key.service == service }.sorted { $0.key < $1.key }
    }

    /// At most `limit` items in `list`'s order that come after `after` (all when nil), only
    /// `service`'s when given: one page of a listing. After the first page of a table that did not
    /// change, a page costs its own size (a binary search, no sort).
    public func list(service: String?, after: ItemKey?, limit: Int) -> [ItemInfo] {
        let keys = order.keys(of: entries)
        // Keys before the page's start form a prefix of the sorted keys: find its end.
        func beforeStart(_ key: ItemKey) -> Bool {
            (after.map { key <= $0 } ?? false) || (service.map { key.service < $0 } ?? false)
        }
        var low = 0, high = keys.count
        while low < high {
            let middle = (low + high) / 2
            if beforeStart(keys[middle]) { low = middle + 1 } else { high = middle }
        }
        var page: [ItemInfo] = []
        page.reserveCapacity(min(limit, keys.count - low))
        for key in keys[low...] {
            guard page.count < limit, service == nil || key.service == service, let entry = entries[key] else { break }
            page.append(entry.info)
        }
        return page
    }

    public static func checkSecret(_ secret: SecretBytes) throws {
        if secret.count > ItemLimits.maxSecretBytes {
            throw VaultError.tooLarge("secret is \(secret.count) bytes; the limit is \(ItemLimits.maxSecretBytes) (64 KiB)")
        }
    }
}
