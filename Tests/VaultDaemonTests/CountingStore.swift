import Synchronization
import VaultCore
import VaultStores
import VaultSystem

/// An in-memory store that counts reads of each item: for tests that show a secret was not
/// read (decrypted, on the file store) before the caller was allowed to have it.
final class CountingStore: VaultStore {
    private let inner = InMemoryStore()
    private let reads = AdaptiveLock<[ItemKey: Int]>([:])

    func gets(of key: ItemKey) -> Int { reads.withLock { $0[key, default: 0] } }

    var kind: StoreKind { inner.kind }
    func status() -> StoreStatus { inner.status() }
    func get(_ key: ItemKey) throws -> Item {
        reads.withLock { $0[key, default: 0] += 1 }
        return try inner.get(key)
    }
    func add(_ key: ItemKey, secret: SecretBytes, changes: ItemChanges) throws -> ItemInfo { try inner.add(key, secret: secret, changes: changes) }
    func set(_ key: ItemKey, secret: SecretBytes, changes: ItemChanges) throws -> ItemInfo { try inner.set(key, secret: secret, changes: changes) }
    func delete(_ key: ItemKey) throws { try inner.delete(key) }
    func list(service: String?) throws -> [ItemInfo] { try inner.list(service: service) }
    func lock() throws { try inner.lock() }
    func unlock(passphrase: SecretBytes?) throws { try inner.unlock(passphrase: passphrase) }
    func itemsGeneration() throws -> UInt64? { try inner.itemsGeneration() }
}

/// Other helpers' items as vaultd's provider keeps them: their secrets are read through `get`,
/// so counted too.
extension CountingStore: AttributeKeepingStore {}
