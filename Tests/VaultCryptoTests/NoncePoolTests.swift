#if canImport(Glibc)
import Glibc
#endif
import Synchronization
import Testing
import VaultCore
@testable import VaultCrypto
import VaultSystem

/// Serialized: one test advances the process-wide generation, which another checks.
@Suite(.serialized) struct NoncePoolTests {
    /// Four threads drawing side by side across many refills: every nonce is new.
    @Test func noncesDrawnOnSeveralThreadsAcrossRefillsAreAllDistinct() throws {
        let perThread = NoncePool.nonces * 20 + 7
        let drawn = AdaptiveLock<[[UInt8]]>([])
        let failures = Atomic<Int>(0)
        let threads = 4
        let done = Atomic<Int>(0)
        for _ in 0..<threads {
            let started = DetachedThread.start(stackSize: 256 * 1024) {
                var mine: [[UInt8]] = []
                for _ in 0..<perThread {
                    guard let nonce = try? NoncePool.bytes(AESGCM.nonceSize), nonce.count == AESGCM.nonceSize else {
                        failures.add(1, ordering: .relaxed)
                        continue
                    }
                    mine.append(nonce)
                }
                drawn.withLock { $0 += mine }
                done.add(1, ordering: .releasing)
            }
            try #require(started)
        }
        while done.load(ordering: .acquiring) < threads { usleep(1000) }
        let all = drawn.withLock { $0 }
        #expect(failures.load(ordering: .relaxed) == 0)
        #expect(all.count == threads * perThread)
        #expect(Set(all).count == all.count)
        #expect(!all.contains([UInt8](repeating: 0, count: AESGCM.nonceSize)))
    }

    @Test func sealsUnderTheSameKeyNeverShareANonce() throws {
        let key = try SecureRandom.secretBytes(AESGCM.keySize)
        let nonces = try (0..<(NoncePool.nonces * 3)).map { _ in try AESGCM.seal([1, 2, 3], key: key, authenticating: []).nonce }
        #expect(Set(nonces).count == nonces.count)
    }

    /// What the fork handler does: the thread's pool is refilled before it gives out another nonce.
    @Test func aPoolOfAnOlderGenerationIsRefilledBeforeItsNextNonce() throws {
        _ = try NoncePool.bytes(AESGCM.nonceSize)
        #expect(!NoncePool.poolIsStale)
        NoncePool.invalidateAfterFork()
        #expect(NoncePool.poolIsStale)
        let refills = NoncePool.refills
        _ = try NoncePool.bytes(AESGCM.nonceSize)
        #expect(NoncePool.refills > refills)
        #expect(!NoncePool.poolIsStale)
    }

    /// A forked child holds a copy of its parent's pool; drawing from it would repeat the parent's
    /// next nonces. The child only asks whether its pool is stale (a draw could wait on a lock
    /// another thread of this test process held at the fork).
    @Test func aForkedChildNeverDrawsFromItsParentsPool() throws {
        _ = try NoncePool.bytes(AESGCM.nonceSize)
        #expect(!NoncePool.poolIsStale)
        var fds: [Int32] = [0, 0]
        #expect(pipe(&fds) == 0)
        let child = fork()
        if child == 0 {
            var answer: UInt8 = NoncePool.poolIsStale ? 1 : 0
            _ = write(fds[1], &answer, 1)
            _exit(0)
        }
        #expect(child > 0)
        close(fds[1])
        var answer: UInt8 = 9
        let count = read(fds[0], &answer, 1)
        close(fds[0])
        var status: Int32 = 0
        _ = waitpid(child, &status, 0)
        #expect(count == 1)
        #expect(answer == 1)
        #expect(!NoncePool.poolIsStale)
    }
}
