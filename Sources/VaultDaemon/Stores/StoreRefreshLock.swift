import VaultCore
import VaultStores
import VaultTokens

/// The refresh lock of the store vaultd serves from when a refresh starts (`VaultStore.refreshLockPath`):
/// keyed on the store, not on vaultd's socket, so every vaultd on one vault file takes turns.
struct StoreRefreshLock: RefreshLock {
    let store: ActiveStore

    func withLock<R>(_ key: ItemKey, until deadline: Double, _ body: () throws -> R) throws -> R {
        guard let path = store.current.store.refreshLockPath else { return try body() }
        // Another vaultd may have refreshed the session while this one waited: the session is
        // read afterwards with a read of its own, which looks at the vault file again.
        return try FileRefreshLock(path: path).withLock(key, until: deadline, body)
    }
}
