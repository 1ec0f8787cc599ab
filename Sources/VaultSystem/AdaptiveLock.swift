#if canImport(Glibc)
import Glibc
#endif

/// vault's one lock (Swift's `Mutex` is not used): a mutex for short sections that many threads
/// enter, such as appending one audit record or finding an item in the file store: glibc's adaptive mutex (`PTHREAD_MUTEX_ADAPTIVE_NP`), which
/// spins a little before it sleeps, and takes and leaves the lock without a system call while it
/// is free or held briefly. Swift's `Mutex` is a priority-inheritance futex on Linux: every
/// contended lock and unlock is a system call (under 8 clients, 73% of vaultd's futex calls came
/// from the audit log's). Callers block: use it from threads, never from the Swift cooperative
/// pool. Not recursive. A pthread mutex is also what the thread sanitizer understands: it sees
/// no order between the futex calls of Swift's `Mutex` and reports every contended section.
public final class AdaptiveLock<State>: @unchecked Sendable {
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private var state: State

    public init(_ state: State) {
        self.state = state
        var attributes = pthread_mutexattr_t()
        pthread_mutexattr_init(&attributes)
        defer { pthread_mutexattr_destroy(&attributes) }
        precondition(pthread_mutexattr_settype(&attributes, Int32(PTHREAD_MUTEX_ADAPTIVE_NP)) == 0, "pthread_mutexattr_settype failed")
        precondition(pthread_mutex_init(mutex, &attributes) == 0, "pthread_mutex_init failed")
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    public func withLock<R>(_ body: (inout State) throws -> R) rethrows -> R {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&state)
    }

    /// Runs `body` holding the lock, without touching the state.
    fileprivate func section<R>(_ body: () throws -> R) rethrows -> R {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body()
    }
}

extension AdaptiveLock where State == Void {
    /// A lock that guards a section, not a value.
    public convenience init() { self.init(()) }

    /// Runs `body` holding the lock. No value is passed: an access to a zero-sized stored value
    /// has the address of whatever follows the object, which the thread sanitizer takes for a
    /// race with that memory's own accesses.
    public func withLock<R>(_ body: () throws -> R) rethrows -> R {
        try section(body)
    }
}
