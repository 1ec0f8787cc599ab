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
    /// The passphrase source that failed to unlock the store, and how its file looked then.
    private var sourceFailure: (source: PassphraseSource, environment: [String: String], file: FileStatus?)?
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

    /// Moves every item of `source` into the store in use (see `StoreMigration`), which keeps
    /// serving; `source`'s sessions' refresh lock is held meanwhile, as for `migrate`.
    public func absorb(from source: any VaultStore, progress: (String) -> Void) throws -> StoreMigration.Report {
        guard let refreshLock = source.refreshLockPath else {
            return try queue.sync { try StoreMigration.migrate(from: source, to: store, progress: progress) }
        }
        return try FileRefreshLock(path: refreshLock).withWholeFile(until: Clock.monotonicSeconds() + SessionRefresher.defaultBudget + 5) {
            try queue.sync { try StoreMigration.migrate(from: source, to: store, progress: progress) }
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

    /// Records (or clears) the reason the store is locked, for `status`. An explicit lock or
    /// unlock supersedes a failed passphrase source: it is not tried again behind the user's back.
    public func setLockReason(_ reason: String?) {
        queue.async { (self.lockReason, self.sourceFailure) = (reason, nil) }
    }

    public var currentLockReason: String? { queue.sync { lockReason } }

    /// Unlocks with the passphrase from `source`, on the store queue, without waiting; `done`
    /// gets nil or the error. A failure is remembered with what the source's file looked like,
    /// so that requests explain it (`explainLocked`) and try again once the file changed.
    public func unlockAsync(from source: PassphraseSource, environment: [String: String], done: @escaping @Sendable (Error?) -> Void) {
        queue.async { done(self.unlock(from: source, environment: environment)) }
    }

    /// On the store queue.
    private func unlock(from source: PassphraseSource, environment: [String: String]) -> Error? {
        let file = source.filePath.flatMap { try? FileStatus.of($0) }
        do {
            try store.unlock(passphrase: try source.read(environment: environment))
            (sourceFailure, lockReason) = (nil, nil)
            return nil
        } catch {
            sourceFailure = (source, environment, file)
            lockReason = "unlocking with the passphrase from \(source) failed: \(error). Once that is fixed, the next request tries again (or run 'vaultctl unlock')"
            return error
        }
    }

    /// For a request that found the store locked: when the passphrase source failed and its
    /// file has changed since (the `chmod` the error asked for was run), tries it again; true
    /// when the store is now unlocked. Otherwise the locked error is given the recorded reason,
    /// so it names the real cause rather than only "locked".
    public func explainLocked(_ error: VaultError) -> (unlocked: Bool, error: VaultError) {
        queue.sync {
            if let failure = sourceFailure, failure.source.filePath.flatMap({ try? FileStatus.of($0) }) != failure.file,
               unlock(from: failure.source, environment: failure.environment) == nil {
                return (true, error)
            }
            guard let lockReason else { return (false, error) }
            return (false, .locked(lockReason))
        }
    }

    /// Replaces why the store in use was chosen, for `status`.
    public func setReason(_ newReason: String) {
        queue.async { self.reason = newReason }
    }

    /// Locks the store when no client request has used it for `idle` seconds.
    public func lockIfIdle(for idle: Double, logger: Logger) {
        queue.async {
            guard Clock.monotonicSeconds() - self.lastUse.withLock({ $0 }) >= idle, !self.store.status().isLocked else { return }
            try? self.store.lock()
            self.sourceFailure = nil
            self.lockReason = "locked after \(Int(idle)) s without use: run 'vaultctl unlock'"
            logger.info("locked after \(Int(idle)) s without use")
        }
    }
}
