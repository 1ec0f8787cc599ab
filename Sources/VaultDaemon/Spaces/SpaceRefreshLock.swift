import VaultCore
import VaultTokens

/// The refresh lock of vaultd's sessions: the store's (every vaultd on one vault file takes
/// turns), and for a session shared in a space, the space's lease too (every machine takes
/// turns: `SpaceAgent.withLease`).
struct SpaceRefreshLock: RefreshLock {
    let local: StoreRefreshLock
    let spaces: SpaceAgent

    func withLock<R>(_ key: ItemKey, until deadline: Double, _ body: () throws -> R) throws -> R {
        try local.withLock(key, until: deadline) {
            guard let space = spaces.sharing(key) else { return try body() }
            return try spaces.withLease(key, in: space.name, until: deadline, body)
        }
    }
}
