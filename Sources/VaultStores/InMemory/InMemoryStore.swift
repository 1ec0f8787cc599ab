import Synchronization
import VaultCore
import VaultSystem

/// A store that keeps everything in process memory: for tests and for embedding.
/// Secrets are `SecretBytes`, so they are wiped when replaced, deleted or when the store goes away.
public final class InMemoryStore: VaultStore {
    private struct State {
        var table = ItemTable<SecretBytes>() { didSet { generation &+= 1 } }
        var isLocked = false { didSet { generation &+= 1 } }
        /// Changes with every change of the items or the lock (`itemsGeneration`).
        var generation: UInt64 = 0
    }

    private let state = AdaptiveLock(State())

    public init() {}

    public var kind: StoreKind { .memory }

    public func status() -> StoreStatus {
        state.withLock { StoreStatus(kind: kind, isLocked: $0.isLocked, location: "process memory", itemCount: $0.isLocked ? nil : $0.table.count) }
    }

    public func get(_ key: ItemKey) throws -> Item {
        try withUnlocked { (state) in
            let entry = try state.table.entry(key)
            return Item(info: entry.info, secret: entry.payload)
        }
    }

    public func add(_ key: ItemKey, secret: SecretBytes, changes: ItemChanges) throws -> ItemInfo {
        try write(key, secret: secret, changes: changes, mustBeNew: true)
    }

    public func set(_ key: ItemKey, secret: SecretBytes, changes: ItemChanges) throws -> ItemInfo {
        try write(key, secret: secret, changes: changes, mustBeNew: false)
    }

    public func delete(_ key: ItemKey) throws {
        try withUnlocked { (state) in _ = try state.table.remove(key) }
    }

    public func list(service: String?) throws -> [ItemInfo] {
        try withUnlocked { (state) in state.table.list(service: service) }
    }

    public func list(service: String?, after: ItemKey?, limit: Int) throws -> [ItemInfo] {
        try withUnlocked { (state) in state.table.list(service: service, after: after, limit: limit) }
    }

    /// Only this process changes it: a count of its changes.
    public func itemsGeneration() throws -> UInt64? {
        state.withLock { $0.generation }
    }

    /// Locking keeps the items (there is nowhere else to keep them) but refuses access until unlocked.
    public func lock() throws {
        state.withLock { $0.isLocked = true }
    }

    public func unlock(passphrase: SecretBytes?) throws {
        state.withLock { $0.isLocked = false }
    }

    private func write(_ key: ItemKey, secret: SecretBytes, changes: ItemChanges, mustBeNew: Bool) throws -> ItemInfo {
        try ItemTable<SecretBytes>.checkSecret(secret)
        return try withUnlocked { (state) in
            try state.table.write(key, payload: secret, changes: changes, mustBeNew: mustBeNew, now: Clock.nowMilliseconds())
        }
    }

    private func withUnlocked<R>(_ body: (inout State) throws -> R) throws -> R {
        try state.withLock { (state) throws -> R in
            if state.isLocked { throw VaultError.locked("run 'vaultctl unlock'") }
            return try body(&state)
        }
    }
}
