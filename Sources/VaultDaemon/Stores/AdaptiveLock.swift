#if canImport(Glibc)
import Glibc
#endif
import CVaultShims

/// A mutex for short sections that many connection threads enter, such as appending one audit
/// record: glibc's adaptive mutex, which spins a little before it sleeps. Swift's `Mutex` is a
/// priority-inheritance futex on Linux, and under 8 clients its lock and unlock went to the
/// kernel on nearly every record (perf: 73% of vaultd's futex calls came from the audit log).
/// Callers block: use it from threads, never from the Swift cooperative pool. Not recursive.
final class AdaptiveLock<State>: @unchecked Sendable {
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private var state: State

    init(_ state: State) {
        self.state = state
        precondition(vault_mutex_init_adaptive(mutex) == 0, "pthread_mutex_init failed")
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    func withLock<R>(_ body: (inout State) throws -> R) rethrows -> R {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&state)
    }
}
