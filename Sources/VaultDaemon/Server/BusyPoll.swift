#if canImport(Glibc)
import Glibc
#endif
import Synchronization
import VaultCore
import VaultSystem

/// A short spin on a connection's socket after an answer, before its thread sleeps, for clients
/// that send requests back to back (a script reading several items, `vaultctl run` resolving its
/// references, a benchmark). A thread that sleeps in `poll` between two such requests gives its
/// core back, and on a machine whose idle cores halt (virtual machines, laptops) the next request
/// first wakes that core: vaultd's work then runs about three times slower on cold caches, and
/// the wake-up itself is an interrupt to another CPU (docs/performance.md, part G).
///
/// Bounded three ways, so that it costs nothing a user would notice:
/// - in time: at most `budget` seconds after an answer, then the thread sleeps as before;
/// - to connections that asked for it: only after a request that came within `budget` of the
///   answer before it (one request per connection, `vaultctl get`'s way, never spins), and not
///   again after a spin that caught nothing until such a request comes again;
/// - to free cores: only while at most `cores / 2` connection threads are at work or spinning,
///   this one included (on 2 cores, only when it is the only one; on 1, never), checked on every
///   turn, so that under concurrency spinning never takes a core from a request or from a client.
///   The cores are those vaultd may use (`UsableCPUs`: its affinity, and its cgroup's CPU quota
///   below that, so that in a container limited to one CPU's worth of time it never spins).
final class BusyPoll: Sendable {
    /// 100 µs: on the 2-core virtual machine of docs/performance.md, a client answered takes 40 to
    /// 60 µs to send its next request; 50 µs caught nearly as many, 200 µs no more.
    static let defaultBudget = 100e-6

    let budget: Double
    private let limit: Int
    /// Connection threads handling a request or spinning now.
    private let active = Atomic<Int>(0)
    /// Threads in `spin` now, spins that found the socket readable, and threads counted active
    /// (for tests).
    private let spinners = Atomic<Int>(0)
    private let caughtCount = Atomic<Int>(0)
    var spinning: Int { spinners.load(ordering: .relaxed) }
    var caught: Int { caughtCount.load(ordering: .relaxed) }
    var activeThreads: Int { active.load(ordering: .relaxed) }

    /// `budget`: how long a spin lasts at most (seconds); 0 turns spinning off.
    init(budget: Double, cores: Int = UsableCPUs.count) {
        limit = cores / 2
        self.budget = limit > 0 ? budget : 0
    }

    /// A request's bytes arrived on a connection that was asleep.
    func enter() { active.add(1, ordering: .relaxed) }

    /// The connection is going to sleep.
    func leave() { active.subtract(1, ordering: .relaxed) }

    /// Spins (between `enter` and `leave`) until `fd` is readable, at most `budget` seconds, and
    /// while few enough threads are at work; true if it became readable (a request arrived, the
    /// client hung up, or the connection was shut down: whatever a sleeping `poll` would have
    /// seen).
    func spin(on fd: FileDescriptor) -> Bool {
        guard budget > 0 else { return false }
        let until = Clock.monotonicSeconds() + budget
        var descriptor = pollfd(fd: fd.rawValue, events: Int16(POLLIN), revents: 0)
        spinners.add(1, ordering: .relaxed)
        defer { spinners.subtract(1, ordering: .relaxed) }
        while active.load(ordering: .relaxed) <= limit {
            // A zero timeout: never sleeps, and EINTR is simply another turn.
            if poll(&descriptor, 1, 0) > 0 {
                caughtCount.add(1, ordering: .relaxed)
                return true
            }
            if Clock.monotonicSeconds() >= until { return false }
        }
        return false
    }
}
