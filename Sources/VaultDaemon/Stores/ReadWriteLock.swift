#if canImport(Glibc)
import Glibc
#endif

/// Many readers or one writer, writers first: once a writer waits, new readers wait behind it,
/// so a steady stream of reads cannot starve a write (or a lock, or a migration).
///
/// Built on a mutex and two condition variables rather than `pthread_rwlock_t`, because a hold
/// need not be released by the thread that took it: `ActiveStore.unlockAsync` takes the write
/// side on the caller's thread (so requests queue behind it) and a worker releases it. Callers
/// block: use it from threads, never from the Swift cooperative pool. Not recursive.
final class ReadWriteLock: @unchecked Sendable {
    // The counters below are touched only with `mutex` held.
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let readable = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    private let writable = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    private var readers = 0
    private var writing = false
    private var waitingWriters = 0

    init() {
        pthread_mutex_init(mutex, nil)
        pthread_cond_init(readable, nil)
        pthread_cond_init(writable, nil)
    }

    deinit {
        pthread_cond_destroy(writable)
        pthread_cond_destroy(readable)
        pthread_mutex_destroy(mutex)
        writable.deallocate()
        readable.deallocate()
        mutex.deallocate()
    }

    func lockShared() {
        pthread_mutex_lock(mutex)
        while writing || waitingWriters > 0 { pthread_cond_wait(readable, mutex) }
        readers += 1
        pthread_mutex_unlock(mutex)
    }

    func unlockShared() {
        pthread_mutex_lock(mutex)
        readers -= 1
        if readers == 0 && waitingWriters > 0 { pthread_cond_signal(writable) }
        pthread_mutex_unlock(mutex)
    }

    func lockExclusive() {
        pthread_mutex_lock(mutex)
        waitingWriters += 1
        while writing || readers > 0 { pthread_cond_wait(writable, mutex) }
        waitingWriters -= 1
        writing = true
        pthread_mutex_unlock(mutex)
    }

    func unlockExclusive() {
        pthread_mutex_lock(mutex)
        writing = false
        if waitingWriters > 0 {
            pthread_cond_signal(writable)
        } else {
            pthread_cond_broadcast(readable)
        }
        pthread_mutex_unlock(mutex)
    }

    func withShared<R>(_ body: () throws -> R) rethrows -> R {
        lockShared()
        defer { unlockShared() }
        return try body()
    }

    func withExclusive<R>(_ body: () throws -> R) rethrows -> R {
        lockExclusive()
        defer { unlockExclusive() }
        return try body()
    }
}
