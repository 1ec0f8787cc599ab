#if canImport(Glibc)
import Glibc
#endif

/// One request's reads of a store, checked once: inside `run`, on its thread, a store that can be
/// changed by other processes (the file store) checks whether one did only at its first read,
/// and the request's later reads (the access rules, the item, the audit key) use what that check
/// found. Outside a scope every read checks. Writes always check, under their inter-process lock.
/// The request then reads the store as it was at that check, as if it had run at that instant.
public enum StoreCheckScope {
    /// This thread's scope: nil outside one; `opened` inside one that has checked nothing yet;
    /// else the store (unretained) that has been checked.
    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        precondition(pthread_key_create(&key, nil) == 0, "pthread_key_create failed")
        return key
    }()
    nonisolated(unsafe) private static let opened = UnsafeMutableRawPointer(bitPattern: 1)!

    /// Runs `body` as one request on this thread (nested scopes are one).
    public static func run<R>(_ body: () throws -> R) rethrows -> R {
        let outer = pthread_getspecific(key)
        if outer == nil { pthread_setspecific(key, opened) }
        defer { if outer == nil { pthread_setspecific(key, nil) } }
        return try body()
    }

    /// For a store about to read: whether it must check for other processes' changes now. True
    /// outside a scope, and inside one the first time for `store` (which this then records).
    public static func mustCheck(_ store: AnyObject) -> Bool {
        guard let current = pthread_getspecific(key) else { return true }
        let this = Unmanaged.passUnretained(store).toOpaque()
        if current == this { return false }
        pthread_setspecific(key, this)
        return true
    }

    /// The next read checks again: for a request that waited (for an approver's answer, say),
    /// so what it reads afterwards is not as old as the wait.
    public static func checkAgain() {
        if pthread_getspecific(key) != nil { pthread_setspecific(key, opened) }
    }
}
