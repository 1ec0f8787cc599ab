import VaultCore

/// The file store as a request reads it after its first read (`StoreReadView`): reads take the
/// open vault as it is, without looking for other processes' writes (that first read did);
/// writes, locking and unlocking are the store's own, looking as always.
final class CaughtUpFileStore: VaultStore {
    let store: EncryptedFileStore

    init(_ store: EncryptedFileStore) {
        self.store = store
    }

    var kind: StoreKind { store.kind }
    var identity: ObjectIdentifier { store.identity }
    var refreshLockPath: String? { store.refreshLockPath }
    func caughtUp() -> any VaultStore { self }
    func status() -> StoreStatus { store.status() }

    func get(_ key: ItemKey) throws -> Item { try store.get(key, looking: false) }
    func list(service: String?) throws -> [ItemInfo] { try store.list(service: service, looking: false) }
    func list(service: String?, after: ItemKey?, limit: Int) throws -> [ItemInfo] {
        try store.list(service: service, after: after, limit: limit, looking: false)
    }
    func itemsGeneration() throws -> UInt64? { try store.itemsGeneration(looking: false) }

    func add(_ key: ItemKey, secret: SecretBytes, changes: ItemChanges) throws -> ItemInfo { try store.add(key, secret: secret, changes: changes) }
    func set(_ key: ItemKey, secret: SecretBytes, changes: ItemChanges) throws -> ItemInfo { try store.set(key, secret: secret, changes: changes) }
    func delete(_ key: ItemKey) throws { try store.delete(key) }
    func lock() throws { try store.lock() }
    func unlock(passphrase: SecretBytes?) throws { try store.unlock(passphrase: passphrase) }
}

extension EncryptedFileStore {
    public func caughtUp() -> any VaultStore { CaughtUpFileStore(self) }
}
