import Dispatch
import Synchronization
import VaultCore
import VaultStores
import VaultTokens

/// The store vaultd serves from, and the one dedicated serial queue every call to it runs on:
/// store calls block (disk, fsync, scrypt, D-Bus), so they never run on the Swift cooperative
/// pool, and the queue also serializes writes. Tracks why this store was chosen, why it is
/// locked, and when a client last used it (for auto-lock). `migrate` swaps in another store.
public final class ActiveStore: @unchecked Sendable {
    // Mutable state below is touched only on `queue`.
    private var store: any VaultStore
    private let queue = DispatchQueue(label: "vaultd.store")
    private var lockReason: String?
    private var reason: String
    /// When a client request that touches items last started or ended. A lock, not the queue:
    /// queueing it would wake a thread twice per request.
    private let lastUse = Mutex(Clock.monotonicSeconds())

    public init(store: any VaultStore, reason: String) {
        self.store = store
        self.reason = reason
    }

    /// The store in use and why it was chosen.
    public var current: (store: any VaultStore, reason: String) { queue.sync { (store, reason) } }

    public var reasonChosen: String { queue.sync { reason } }

    /// Moves every item to `destination` (see `StoreMigration`) and then serves from it. Holds
    /// every session's refresh lock of the current store meanwhile (taken before the store
    /// queue, which a refresh in flight needs to finish), so no process refreshes a session
    /// between its copy and the removal of its original.
    public func migrate(to destination: any VaultStore, reason newReason: String, progress: (String) -> Void) throws -> StoreMigration.Report {
        guard let refreshLock = current.store.refreshLockPath else { return try move(to: destination, reason: newReason, progress: progress) }
        return try FileRefreshLock(path: refreshLock).withWholeFile(until: Clock.monotonicSeconds() + SessionRefresher.defaultBudget + 5) {
            try move(to: destination, reason: newReason, progress: progress)
        }
    }

    private func move(to destination: any VaultStore, reason newReason: String, progress: (String) -> Void) throws -> StoreMigration.Report {
        try queue.sync {
            let report = try StoreMigration.migrate(from: store, to: destination, progress: progress)
            store = destination
            reason = newReason
            lockReason = nil
            return report
        }
    }

    /// Runs `body` on the store queue and waits for it. Callers are connection threads and
    /// vaultd's own queues, never the cooperative pool. It does not count as use for auto-lock:
    /// vaultd's own calls (background refresh, `status`) must not keep the keys in memory.
    public func perform<R>(_ body: (any VaultStore) throws -> R) throws -> R {
        try queue.sync { try body(store) }
    }

    /// A client request that touches items is starting or has ended: auto-lock counts from here.
    public func recordUse() {
        lastUse.withLock { $0 = Clock.monotonicSeconds() }
    }

    /// Runs `body` on the store queue without waiting, with the store in use when it runs.
    public func performAsync(_ body: @escaping @Sendable (any VaultStore) -> Void) {
        queue.async { body(self.store) }
    }

    /// Records (or clears) the reason the store is locked, for `status`.
    public func setLockReason(_ reason: String?) {
        queue.async { self.lockReason = reason }
    }

    public var currentLockReason: String? { queue.sync { lockReason } }

    /// Locks the store when no client request has used it for `idle` seconds.
    public func lockIfIdle(for idle: Double, logger: Logger) {
        queue.async {
            guard Clock.monotonicSeconds() - self.lastUse.withLock({ $0 }) >= idle, !self.store.status().isLocked else { return }
            try? self.store.lock()
            self.lockReason = "locked after \(Int(idle)) s without use"
            logger.info("locked after \(Int(idle)) s without use")
        }
    }
}
