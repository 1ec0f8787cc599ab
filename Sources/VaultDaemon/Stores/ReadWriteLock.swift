#if canImport(Glibc)
import Glibc
#endif
import CVaultShims

/// Many readers or one writer, writers first: once a writer waits, new readers wait behind it,
/// so a steady stream of reads cannot starve a write (or a lock, or a migration). glibc's
/// rwlock: a reader takes and leaves it with one atomic operation while no writer is about (a
/// mutex-and-condition-variable lock went to the kernel twice per `get` under 8 clients).
/// Whoever takes a side releases it, on the same thread. Callers block: use it from threads,
/// never from the Swift cooperative pool. Not recursive.
final class ReadWriteLock: @unchecked Sendable {
    private let lock = UnsafeMutablePointer<pthread_rwlock_t>.allocate(capacity: 1)

    init() {
        precondition(vault_rwlock_init_prefer_writer(lock) == 0, "pthread_rwlock_init failed")
    }

    deinit {
        pthread_rwlock_destroy(lock)
        lock.deallocate()
    }

    func withShared<R>(_ body: () throws -> R) rethrows -> R {
        pthread_rwlock_rdlock(lock)
        defer { pthread_rwlock_unlock(lock) }
        return try body()
    }

    func withExclusive<R>(_ body: () throws -> R) rethrows -> R {
        pthread_rwlock_wrlock(lock)
        defer { pthread_rwlock_unlock(lock) }
        return try body()
    }
}
