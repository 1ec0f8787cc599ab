import Synchronization
import VaultCore

/// A value vaultd derives from items of the active store (the access rules, the audit key), kept
/// between requests so a `get` does not load and decode them each time. Filled only inside
/// `ActiveStore.read` (no write of this vaultd runs meanwhile) and emptied by every exclusive
/// section of `ActiveStore` (writes, lock, unlock, migrate, change_passphrase, auto-lock): so a
/// rule changed here applies to the very next request, and nothing stays cached once the
/// store is locked. Writes by other processes:
/// - file store: the value is kept with the vault file's identity (device, inode, size, mtime:
///   the check the file store itself makes to notice another process's write), taken before the
///   value was loaded, and used only while the file still has that identity;
/// - Secret Service: never cached (any program of the user can change the collection over
///   D-Bus, and no change signal is watched here);
/// - in-memory store: no other process can write it.
final class StoreCache<Value: Sendable>: StoreCacheClearing, Sendable {
    private struct Entry {
        var file: FileStatus?
        var value: Value
    }

    private let vaultFile: String
    private let entry = Mutex<Entry?>(nil)

    /// `vaultFile`: where the file store keeps its vault (the configuration's path).
    init(vaultFile: String) {
        self.vaultFile = vaultFile
    }

    /// The cached value, or `load(store)` (then cached). Call inside `ActiveStore.read` with its store.
    func value(in store: any VaultStore, load: (any VaultStore) throws -> Value) throws -> Value {
        let file: FileStatus?
        switch store.kind {
        case .secretService:
            return try load(store)
        case .memory:
            file = nil
        case .file:
            guard let status = try? FileStatus.of(vaultFile) else { return try load(store) }
            file = status
        }
        if let cached = entry.withLock({ $0 }), Self.same(cached.file, file) { return cached.value }
        let value = try load(store)
        entry.withLock { $0 = Entry(file: file, value: value) }
        return value
    }

    func clear() {
        entry.withLock { $0 = nil }
    }

    private static func same(_ a: FileStatus?, _ b: FileStatus?) -> Bool {
        switch (a, b) {
        case (nil, nil): true
        case (let a?, let b?): a.sameFile(as: b)
        default: false
        }
    }
}
