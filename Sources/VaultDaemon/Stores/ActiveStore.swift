import Dispatch
import Synchronization
import VaultCore
import VaultStores
import VaultTokens
import VaultSystem

/// The store vaultd serves from, behind a readers-writer lock: reads (`read`) run side by side,
/// on the calling thread; anything that changes items or the store's state (`perform`: writes,
/// lock, unlock, migrate) runs alone. Store calls block (disk, fsync, scrypt, D-Bus), so callers
/// are connection threads and vaultd's own queues, never the Swift cooperative pool; `unlockAsync`
/// runs on `worker`, a dispatch queue of its own. Tracks why this store was chosen, why it
/// is locked, and when a client last used it (for auto-lock). `migrate` swaps in another store.
public final class ActiveStore: @unchecked Sendable {
    // Mutable state below is read with `access` held shared and changed with it held exclusive.
    private var store: any VaultStore
    private let access = ReadWriteLock()
    private let worker = DispatchQueue(label: "vaultd.store")
    private var lockReason: String?
    /// The passphrase source that failed to unlock the store, and how its file looked then.
    private var sourceFailure: (source: PassphraseSource, environment: [String: String], file: FileStatus?)?
    private var reason: String
    /// When a client request that touches items last started or ended (the seconds' bit pattern):
    /// an atomic, since every request sets it twice.
    private let lastUse = Atomic<UInt64>(Clock.monotonicSeconds().bitPattern)
    /// Called (on the unlocking thread, so they must not block) each time the store was unlocked.
    private let unlockObservers = AdaptiveLock<[@Sendable () -> Void]>([])
    /// Values derived from items (`StoreCache`), emptied after every exclusive section.
    private let caches = AdaptiveLock<[any StoreCacheClearing]>([])
    /// Run alone on the store right before it locks, however it locks (`beforeLocking`).
    private let lockHooks = AdaptiveLock<[@Sendable (any VaultStore) -> Void]>([])

    public init(store: any VaultStore, reason: String) {
        self.store = store
        self.reason = reason
    }

    /// The store in use and why it was chosen.
    public var current: (store: any VaultStore, reason: String) { access.withShared { (store, reason) } }

    public var reasonChosen: String { access.withShared { reason } }

    /// Moves every item to `destination` (see `StoreMigration`) and then serves from it. Holds
    /// every session's refresh lock of the current store meanwhile (taken before the write side,
    /// which a refresh in flight needs to finish), so no process refreshes a session
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
            return try exclusively { try StoreMigration.migrate(from: source, to: store, progress: progress) }
        }
        return try FileRefreshLock(path: refreshLock).withWholeFile(until: Clock.monotonicSeconds() + SessionRefresher.defaultBudget + 5) {
            try exclusively { try StoreMigration.migrate(from: source, to: store, progress: progress) }
        }
    }

    private func move(to destination: any VaultStore, reason newReason: String, progress: (String) -> Void) throws -> StoreMigration.Report {
        try exclusively {
            let report = try StoreMigration.migrate(from: store, to: destination, progress: progress)
            store = destination
            reason = newReason
            lockReason = nil
            return report
        }
    }

    /// Runs `body` alone (no read or other write meanwhile), on the calling thread: for anything
    /// that changes items or the store. Callers are connection threads and vaultd's own queues,
    /// never the cooperative pool. Neither this nor `read` counts as use for auto-lock: vaultd's
    /// own calls (background refresh, `status`) must not keep the keys in memory.
    public func perform<R>(_ body: (any VaultStore) throws -> R) throws -> R {
        try exclusively { try body(store) }
    }

    /// Runs `body`, which only reads, beside other reads, on the calling thread (as `perform`).
    /// The stores are safe for concurrent calls: their own state sits behind a lock of theirs.
    public func read<R>(_ body: (any VaultStore) throws -> R) throws -> R {
        try access.withShared { try body(store) }
    }

    /// As `read`, through one request's view (`StoreReadView`): only its first read looks for
    /// other processes' writes.
    public func read<R>(_ view: StoreReadView, _ body: (any VaultStore) throws -> R) throws -> R {
        try access.withShared { try body(view.reading(store)) }
    }

    /// Makes `cache` one that every exclusive section (writes, lock, unlock, migrate, passphrase
    /// change, auto-lock) empties before the next read can run.
    func register(_ cache: any StoreCacheClearing) {
        caches.withLock { $0.append(cache) }
    }

    /// `body` with the write side held; the caches are emptied before it is released, whether
    /// `body` changed anything or threw.
    private func exclusively<R>(_ body: () throws -> R) rethrows -> R {
        try access.withExclusive {
            defer { for cache in caches.withLock({ $0 }) { cache.clear() } }
            return try body()
        }
    }

    /// A client request that touches items is starting or has ended: auto-lock counts from here.
    public func recordUse() {
        lastUse.store(Clock.monotonicSeconds().bitPattern, ordering: .relaxed)
    }

    /// Records (or clears) the reason the store is locked, for `status`. An explicit lock or
    /// unlock supersedes a failed passphrase source: it is not tried again behind the user's back.
    public func setLockReason(_ reason: String?) {
        exclusively { (lockReason, sourceFailure) = (reason, nil) }
        if reason == nil { notifyUnlocked() }
    }

    /// Calls `observer` whenever the store has been unlocked (an unlock request, a passphrase
    /// source); it runs on the unlocking thread and must only hand work on.
    public func whenUnlocked(_ observer: @escaping @Sendable () -> Void) {
        unlockObservers.withLock { $0.append(observer) }
    }

    private func notifyUnlocked() {
        for observer in unlockObservers.withLock({ $0 }) { observer() }
    }

    public var currentLockReason: String? { access.withShared { lockReason } }

    /// Unlocks with the passphrase from `source` on `worker`, without waiting; `done` gets nil or
    /// the error. The worker holds the write side before this returns, so requests queue behind
    /// the unlock rather than finding the store locked. A failure is remembered with what the source's file looked like,
    /// so that requests explain it (`explainLocked`) and try again once the file changed.
    public func unlockAsync(from source: PassphraseSource, environment: [String: String], done: @escaping @Sendable (Error?) -> Void) {
        let holding = DispatchSemaphore(value: 0)
        worker.async {
            let error = self.exclusively {
                holding.signal()
                return self.unlock(from: source, environment: environment)
            }
            done(error)
        }
        holding.wait()
    }

    /// With the write side held.
    private func unlock(from source: PassphraseSource, environment: [String: String]) -> Error? {
        let file = source.filePath.flatMap { try? FileStatus.of($0) }
        do {
            try store.unlock(passphrase: try source.read(environment: environment))
            (sourceFailure, lockReason) = (nil, nil)
            notifyUnlocked()
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
        exclusively {
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
        exclusively { reason = newReason }
    }

    /// Locks the store: the one way vaultd locks it (a request, a Secret Service client, auto-lock,
    /// shutdown), so that what must be written while the keys are at hand is (`beforeLocking`).
    public func lock() throws {
        try exclusively { try lockHeld() }
    }

    /// `hook` runs, with the store and alone on it, each time right before the store locks; it
    /// must not call `read` or `perform` (the section is held) and its failures are its own.
    public func beforeLocking(_ hook: @escaping @Sendable (any VaultStore) -> Void) {
        lockHooks.withLock { $0.append(hook) }
    }

    private func lockHeld() throws {
        if !store.status().isLocked {
            for hook in lockHooks.withLock({ $0 }) { hook(store) }
        }
        try store.lock()
    }

    /// Locks the store when no client request has used it for `idle` seconds; waits for a write
    /// in progress (call it from a queue of its own, as vaultd's auto-lock timer does).
    public func lockIfIdle(for idle: Double, logger: Logger) {
        exclusively {
            guard Clock.monotonicSeconds() - Double(bitPattern: lastUse.load(ordering: .relaxed)) >= idle, !store.status().isLocked else { return }
            try? lockHeld()
            sourceFailure = nil
            lockReason = "locked after \(Int(idle)) s without use: run 'vaultctl unlock'"
            logger.info("locked after \(Int(idle)) s without use")
        }
    }
}
