import VaultCore
import VaultSystem

/// A value vaultd derives from items of the active store (the access rules, the audit key), kept
/// between requests so a `get` does not load and decode them each time. Filled only inside
/// `ActiveStore.read` (no write of this vaultd runs meanwhile) and emptied by every exclusive
/// section of `ActiveStore` (writes, lock, unlock, migrate, change_passphrase, auto-lock): so a
/// rule changed here applies to the very next request, and nothing stays cached once the
/// store is locked. Against other processes' writes the value is kept with the store's
/// `itemsGeneration`, taken (and so the store brought up to date) before the value was loaded,
/// and used only while the store still answers the same generation:
/// - file store: the generation changes whenever the store reads another process's write, which
///   the same call checks for (one look per request, shared with the request's other reads:
///   `StoreReadView`);
/// - Secret Service: no generation, never cached (any program of the user can change the
///   collection over D-Bus, and no change signal is watched here);
/// - in-memory store: no other process can write it.
final class StoreCache<Value: Sendable>: StoreCacheClearing, Sendable {
    private struct Entry {
        var store: ObjectIdentifier
        var generation: UInt64
        var value: Value
    }

    /// Adaptive: every request looks here twice, from as many threads as there are connections.
    private let entry = AdaptiveLock<Entry?>(nil)

    init() {}

    /// The cached value, or `load(store)` (then cached). Call inside `ActiveStore.read` with its store.
    func value(in store: any VaultStore, load: (any VaultStore) throws -> Value) throws -> Value {
        guard let generation = try? store.itemsGeneration() else { return try load(store) }
        let identity = store.identity
        if let cached = entry.withLock({ $0 }), cached.store == identity, cached.generation == generation { return cached.value }
        let value = try load(store)
        entry.withLock { $0 = Entry(store: identity, generation: generation, value: value) }
        return value
    }

    func clear() {
        entry.withLock { $0 = nil }
    }
}
