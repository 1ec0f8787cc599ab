import VaultCore

/// Keeps refreshes of one session to one at a time across every process that shares its store:
/// a refresh token presented twice is `invalid_grant` for a provider that rotates them.
/// `SessionRefresher` runs its whole refresh (reload, request, compare-and-swap) inside it,
/// behind its own in-process single flight.
public protocol RefreshLock: Sendable {
    /// Runs `body` holding the lock for `key`. Waits until `deadline` (`Clock.monotonicSeconds()`)
    /// at most, then throws `VaultError.busy` without running it.
    func withLock<R>(_ key: ItemKey, until deadline: Double, _ body: () throws -> R) throws -> R
}

/// For a store no other process can see (process memory): the in-process single flight suffices.
public struct ProcessLocalRefreshLock: RefreshLock {
    public init() {}

    public func withLock<R>(_ key: ItemKey, until deadline: Double, _ body: () throws -> R) throws -> R {
        try body()
    }
}
