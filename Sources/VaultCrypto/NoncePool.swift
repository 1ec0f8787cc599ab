#if canImport(Glibc)
import Glibc
#endif
import COpenSSL
import Synchronization

/// Random nonces for AES-GCM from a per-thread pool of CSPRNG output, refilled by one
/// `RAND_bytes` call every `nonces` draws. Each `RAND_bytes` call costs OpenSSL's locking, its
/// DRBG's set-up and a `getpid` system call (its fork check); every audit record is sealed under
/// a fresh nonce, so vaultd paid those on every request (docs/performance.md, part H).
///
/// The bytes are the same CSPRNG's output, drawn earlier: a nonce needs to be unique under its
/// key, not secret (it is stored beside the ciphertext). Two things could make a pooled nonce
/// repeat, and both are excluded:
/// - two threads drawing from one pool: each thread has its own (a pthread key, freed at exit);
/// - a `fork`: the child starts with a copy of the forking thread's pool, so it would draw the
///   parent's next nonces. A `pthread_atfork` child handler advances a generation, and a pool of
///   an older generation is refilled before it gives anything out. (`posix_spawn` runs no
///   handlers, but its child runs nothing of vaultd's before `exec`.)
/// Keys and salts never come from here: `SecureRandom` draws them directly.
enum NoncePool {
    /// Draws between refills, of `AESGCM.nonceSize` bytes each.
    static let nonces = 128
    static let poolSize = nonces * AESGCM.nonceSize

    /// `count` fresh random bytes (`count` at most `poolSize`; larger requests go to `RAND_bytes`).
    static func bytes(_ count: Int) throws -> [UInt8] {
        guard count > 0 else { return [] }
        guard count <= poolSize else { return try SecureRandom.bytes(count) }
        _ = forkHandler
        let pool = try current()
        return try pool.take(count, generation: generation.load(ordering: .acquiring))
    }

    /// Advanced in a child after `fork`; pools of an older generation refill before use.
    private static let generation = Atomic<UInt64>(0)
    /// Refills made in this process (for tests).
    private static let refillCount = Atomic<Int>(0)
    static var refills: Int { refillCount.load(ordering: .relaxed) }

    /// What the child handler does (tests call it too).
    static func invalidateAfterFork() { generation.add(1, ordering: .releasing) }

    /// Whether this thread's next draw refills its pool first because of a `fork` (for tests: a
    /// forked child of the test process can ask this, which takes no lock, where a draw could
    /// wait on a lock of OpenSSL's that another thread held at the fork).
    static var poolIsStale: Bool {
        guard let existing = pthread_getspecific(threadPool) else { return true }
        return Unmanaged<Pool>.fromOpaque(existing).takeUnretainedValue().generation != generation.load(ordering: .acquiring)
    }

    private static let forkHandler: Void = {
        // The generation first, so the handler never initialises it in a child.
        _ = generation.load(ordering: .relaxed)
        precondition(pthread_atfork(nil, nil, { NoncePool.invalidateAfterFork() }) == 0, "pthread_atfork failed")
    }()

    private static let threadPool: pthread_key_t = {
        var key = pthread_key_t()
        precondition(pthread_key_create(&key) { Unmanaged<Pool>.fromOpaque($0!).release() } == 0, "pthread_key_create failed")
        return key
    }()

    private static func current() throws -> Pool {
        if let existing = pthread_getspecific(threadPool) { return Unmanaged<Pool>.fromOpaque(existing).takeUnretainedValue() }
        let pool = Pool()
        guard pthread_setspecific(threadPool, Unmanaged.passRetained(pool).toOpaque()) == 0 else {
            Unmanaged.passUnretained(pool).release()
            throw CryptoError.library("could not keep this thread's nonce pool (pthread_setspecific failed)")
        }
        return pool
    }

    /// One thread's pool: only its thread touches it.
    private final class Pool {
        private var bytes = [UInt8](repeating: 0, count: NoncePool.poolSize)
        /// Bytes at the front already given out (all of them until the first refill).
        private var used = NoncePool.poolSize
        private(set) var generation: UInt64 = 0

        func take(_ count: Int, generation current: UInt64) throws -> [UInt8] {
            if used + count > bytes.count || generation != current {
                try bytes.withUnsafeMutableBytes { try SecureRandom.fill($0) }
                used = 0
                generation = current
                NoncePool.refillCount.add(1, ordering: .relaxed)
            }
            assert(used + count <= bytes.count)
            defer {
                // Given out once (`used` moves past them; zeroed as well, for defence in depth).
                bytes.withUnsafeMutableBufferPointer { $0.baseAddress!.advanced(by: used).update(repeating: 0, count: count) }
                used += count
            }
            return Array(bytes[used..<(used + count)])
        }
    }
}
