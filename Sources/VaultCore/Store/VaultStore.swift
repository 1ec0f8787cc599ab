/// The interface every backend implements (encrypted file, Secret Service, in-memory).
///
/// Calls may block (disk, D-Bus): callers run them off the Swift cooperative pool. Implementations
/// are thread-safe and give Keychain semantics: `add` refuses an existing key, `set` inserts or
/// updates, `get` and `delete` of a missing key throw `.notFound`, `list` never returns secrets.
public protocol VaultStore: AnyObject, Sendable {
    var kind: StoreKind { get }

    func status() -> StoreStatus

    func get(_ key: ItemKey) throws -> Item
    @discardableResult
    func add(_ key: ItemKey, secret: SecretBytes, changes: ItemChanges) throws -> ItemInfo
    @discardableResult
    func set(_ key: ItemKey, secret: SecretBytes, changes: ItemChanges) throws -> ItemInfo
    func delete(_ key: ItemKey) throws
    /// Keys and metadata, sorted by service then account; only `service`'s items when given.
    /// Several items under one key (Secret Service duplicates) are one entry.
    func list(service: String?) throws -> [ItemInfo]
    /// One page of `list`: at most `limit` items, those after `after` (from the first when nil).
    /// Default: filters `list`; the stores that keep an `ItemTable` page without sorting again.
    func list(service: String?, after: ItemKey?, limit: Int) throws -> [ItemInfo]
    /// Items in vault's part of the store that no `ItemKey` can address (an empty or missing
    /// account, a control character, a name over the limit), so that nothing is invisible.
    /// Only `service`'s when given. Default: none (the file store validates every key).
    func unaddressable(service: String?) throws -> [UnaddressableItem]
    /// The items whose Secret Service attributes (`ItemInfo.secretServiceAttributes`) include
    /// every one of `attributes` with that value, in `list`'s order; every item when empty.
    /// Default: filters `list`.
    func items(matching attributes: [String: String]) throws -> [ItemInfo]

    /// Drops keys and decrypted data from memory.
    func lock() throws
    /// Unlocks with `passphrase`, or with the store's own mechanism when nil.
    func unlock(passphrase: SecretBytes?) throws

    /// The lock file through which every process using this store takes turns refreshing its
    /// sign-in sessions; nil for a store no other process can see. Default: nil.
    var refreshLockPath: String? { get }

    /// Brings the store up to date with what other processes wrote (a read's check) and returns a number that differs whenever its items may have changed
    /// since it was last returned, by this process or another; values derived from items may be
    /// kept while it stays the same. nil when the store cannot tell (nothing may be kept).
    /// Default: nil.
    func itemsGeneration() throws -> UInt64?

    /// This store, its reads not looking for other processes' writes: for a request that has
    /// just looked (`StoreReadView`). Writes still look. Default: the store itself (a store no
    /// other process writes, or one that is asked anew each time).
    func caughtUp() -> any VaultStore

    /// What values derived from the store's items are kept under (`caughtUp`'s view answers its
    /// store's). Default: the object's identity.
    var identity: ObjectIdentifier { get }
}

extension VaultStore {
    public func caughtUp() -> any VaultStore { self }
    public var identity: ObjectIdentifier { ObjectIdentifier(self) }
    public var refreshLockPath: String? { nil }
    public func itemsGeneration() throws -> UInt64? { nil }
    public func unaddressable(service: String?) throws -> [UnaddressableItem] { [] }
    public func items(matching attributes: [String: String]) throws -> [ItemInfo] {
        guard let service = attributes["service"], service != ItemKey.attributeOnlyService else {
            return try list(service: nil).filter { $0.matches(attributes) }
        }
        // Items with that service, and those with made-up keys that have it as an attribute.
        return try (list(service: service) + list(service: ItemKey.attributeOnlyService)).filter { $0.matches(attributes) }.sorted { $0.key < $1.key }
    }
    public func list(service: String?, after: ItemKey?, limit: Int) throws -> [ItemInfo] {
        Array(try list(service: service).lazy.filter { after == nil || $0.key > after! }.prefix(limit))
    }
}

/// What `status` reports about a store.
public struct StoreStatus: Sendable, Equatable {
    public var kind: StoreKind
    public var isLocked: Bool
    /// Where the data lives (a path, a collection), for humans.
    public var location: String
    /// Every item, counting each duplicate and each unaddressable item (nil when locked).
    public var itemCount: Int?
    /// Of `itemCount`: items vault cannot address, and extra items under a key another holds.
    public var unaddressableCount: Int
    public var duplicateCount: Int

    public init(kind: StoreKind, isLocked: Bool, location: String, itemCount: Int?, unaddressableCount: Int = 0, duplicateCount: Int = 0) {
        self.unaddressableCount = unaddressableCount
        self.duplicateCount = duplicateCount
        self.kind = kind
        self.isLocked = isLocked
        self.location = location
        self.itemCount = itemCount
    }
}
