import Dispatch
import VaultCore
import VaultStores

/// Owns the store and runs every call to it on one dedicated serial queue: store calls block
/// (disk, fsync, scrypt), so they never run on the Swift cooperative pool, and the queue also
/// serializes writes. Tracks why the store is locked and when it was last used (for auto-lock).
public final class StoreService: @unchecked Sendable {
    // Mutable state below is touched only on `queue`.
    private var store: any VaultStore
    private let queue = DispatchQueue(label: "vaultd.store")
    private var lockReason: String?
    private var lastUse = Clock.monotonicSeconds()
    private var reason: String

    public init(store: any VaultStore, backendReason: String) {
        self.store = store
        reason = backendReason
    }

    /// The store in use and why it was chosen.
    public var current: (store: any VaultStore, reason: String) { queue.sync { (store, reason) } }

    public var backendReason: String { queue.sync { reason } }

    /// Moves every item to `destination` (see `StoreMigration`) and then serves from it.
    public func migrate(to destination: any VaultStore, reason newReason: String, progress: (String) -> Void) throws -> StoreMigration.Report {
        try queue.sync {
            lastUse = Clock.monotonicSeconds()
            let report = try StoreMigration.migrate(from: store, to: destination, progress: progress)
            store = destination
            reason = newReason
            lockReason = nil
            return report
        }
    }

    /// Runs `body` on the store queue and waits for it. Callers are connection queues (Dispatch
    /// threads), never the cooperative pool.
    public func perform<R>(_ body: (any VaultStore) throws -> R) throws -> R {
        try queue.sync {
            lastUse = Clock.monotonicSeconds()
            return try body(store)
        }
    }

    public func performAsync(_ body: @escaping @Sendable (any VaultStore) -> Void) {
        queue.async { [store] in body(store) }
    }

    /// Records (or clears) the reason the store is locked, for `status`.
    public func setLockReason(_ reason: String?) {
        queue.async { self.lockReason = reason }
    }

    public var currentLockReason: String? { queue.sync { lockReason } }

    /// Locks the store when it has not been used for `idle` seconds. Runs on the store queue.
    public func lockIfIdle(for idle: Double, logger: Logger) {
        queue.async {
            guard Clock.monotonicSeconds() - self.lastUse >= idle, !self.store.status().isLocked else { return }
            try? self.store.lock()
            self.lockReason = "locked after \(Int(idle)) s without use"
            logger.info("locked after \(Int(idle)) s without use")
        }
    }
}
