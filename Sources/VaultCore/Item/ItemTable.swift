/// The Keychain rules over the items a store keeps in memory, shared by the stores that do.
/// `Payload` is what a store keeps per item: the secret itself, or its ciphertext.
///
/// The entries lie in one dense array, found by a dictionary from key to position: a Swift
/// dictionary has a power-of-two number of buckets (at most three quarters full), so a dictionary
/// of whole entries kept two to four times their size in buckets (52 MB of 100,000 items'
/// 17 MB); the buckets now hold a key and a 32-bit position.
public struct ItemTable<Payload: Sendable>: Sendable {
    public struct Entry: Sendable {
        public var info: ItemInfo
        public var payload: Payload
    }

    /// Every entry, in no particular order.
    public private(set) var entries: [Entry] = []
    private var positions: [ItemKey: UInt32] = [:]
    /// The entries' positions in key order, for listing: sorted on first use, replaced (not
    /// changed) by every mutation, so a copy of the table keeps the order that matches its own entries.
    private var order = SortedPositions()

    public init() {}

    public var count: Int { entries.count }

    public subscript(key: ItemKey) -> Entry? {
        positions[key].map { entries[Int($0)] }
    }

    public func entry(_ key: ItemKey) throws -> Entry {
        guard let entry = self[key] else { throw VaultError.notFound(key) }
        return entry
    }

    /// Makes room for `count` entries in all (a file's records, before they are restored).
    public mutating func reserveCapacity(_ count: Int) {
        entries.reserveCapacity(count)
        positions.reserveCapacity(count)
    }

    private mutating func put(_ entry: Entry) {
        if let position = positions[entry.info.key] {
            entries[Int(position)] = entry
        } else {
            positions[entry.info.key] = UInt32(entries.count)
            entries.append(entry)
        }
        order = SortedPositions()
    }

    /// The metadata a write of `key` would leave: a new item's defaults, or the existing item's
    /// values overlaid with `changes`. With `mustBeNew`, an existing key is a `.duplicate` error.
    /// `now` is milliseconds since the epoch.
    public func metadataForWrite(
        _ key: ItemKey, changes: ItemChanges, mustBeNew: Bool, now: Int64
    ) throws -> ItemInfo {
        try changes.validate(for: key)
        guard let existing = self[key] else {
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
        put(Entry(info: info, payload: payload))
        return info
    }

    /// Puts an entry back exactly as it was read (loading a file).
    public mutating func restore(_ info: ItemInfo, payload: Payload) {
        put(Entry(info: info, payload: payload))
    }

    /// Removes `key`'s entry; the last entry takes its place.
    public mutating func remove(_ key: ItemKey) throws -> Entry {
        guard let position = positions.removeValue(forKey: key).map(Int.init) else { throw VaultError.notFound(key) }
        let last = entries.removeLast()
        order = SortedPositions()
        guard position < entries.count else { return last }
        let removed = entries[position]
        entries[position] = last
        positions[last.info.key] = UInt32(position)
        return removed
    }

    public func list(service: String?) -> [ItemInfo] {
        guard let service else { return order.positions(of: entries).map { entries[Int($0)].info } }
        return entries.lazy.map(\.info).filter { $0.key.service == service }.sorted { $0.key < $1.key }
    }

    /// At most `limit` items in `list`'s order that come after `after` (all when nil), only
    /// `service`'s when given: one page of a listing. After the first page of a table that did not
    /// change, a page costs its own size (a binary search, no sort).
    public func list(service: String?, after: ItemKey?, limit: Int) -> [ItemInfo] {
        let sorted = order.positions(of: entries)
        // Keys before the page's start form a prefix of the sorted keys: find its end.
        func beforeStart(_ key: ItemKey) -> Bool {
            (after.map { key <= $0 } ?? false) || (service.map { key.service < $0 } ?? false)
        }
        var low = 0, high = sorted.count
        while low < high {
            let middle = (low + high) / 2
            if beforeStart(entries[Int(sorted[middle])].info.key) { low = middle + 1 } else { high = middle }
        }
        var page: [ItemInfo] = []
        page.reserveCapacity(min(limit, sorted.count - low))
        for position in sorted[low...] {
            let info = entries[Int(position)].info
            guard page.count < limit, service == nil || info.key.service == service else { break }
            page.append(info)
        }
        return page
    }

    public static func checkSecret(_ secret: SecretBytes) throws {
        if secret.count > ItemLimits.maxSecretBytes {
            throw VaultError.tooLarge("secret is \(secret.count) bytes; the limit is \(ItemLimits.maxSecretBytes) (64 KiB)")
        }
    }
}
