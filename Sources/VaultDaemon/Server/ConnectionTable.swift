#if canImport(Glibc)
import Glibc
#endif
import VaultCore
import VaultSystem

/// vaultd's open connections, and where each is: admission (one process's share, the overall
/// cap), eviction of the longest-idle to make room, and the brief wait for a connection settling,
/// all decided under one lock that every connection's change of phase takes too, so an
/// admission always sees one consistent table.
final class ConnectionTable: Sendable {
    /// Where a connection is.
    enum Phase: Equatable {
        /// Nothing of a request has arrived since the last answer (or the connection opened).
        case idle(since: Double)
        /// A request is being received or answered.
        case busy
        /// The last request buffered is being answered; idle once its bytes are consumed. A
        /// client that reads its answer and closes at once (to connect again) finds its
        /// connection here: an admission waits for it briefly rather than refuse.
        case finishing
    }

    /// An idle connection closed to make room.
    struct Evicted: Equatable {
        let number: Int
        let pid: Int32
    }

    /// What became of a connection asking to be admitted.
    enum Admission: Equatable {
        /// Admitted as `number`; `evicted`: the idle connection closed to make room, if one was.
        case admitted(number: Int, evicted: Evicted?)
        /// Its process has `open` connections, its share.
        case overProcessShare(open: Int)
        /// `open` connections, the cap, and none idle or settling.
        case full(open: Int)
    }

    private struct Entry {
        let fd: FileDescriptor
        let pid: Int32
        var phase: Phase
    }

    private struct State {
        var entries: [Int: Entry] = [:]
        var perProcess: [Int32: Int] = [:]
        var lastNumber = 0

        mutating func remove(_ number: Int) {
            guard let entry = entries.removeValue(forKey: number) else { return }
            let left = perProcess[entry.pid, default: 1] - 1
            perProcess[entry.pid] = left > 0 ? left : nil
        }
    }

    private let state = AdaptiveLock(State())
    /// Admissions waiting for a settling connection, woken when one becomes idle or leaves.
    private let waiters = WakeList()
    let maxConnections: Int
    let perProcessLimit: Int
    /// How long an admission waits for a settling connection before it refuses: settling takes
    /// microseconds; this bounds it when the machine is loaded.
    let settleWait: Double

    init(maxConnections: Int, perProcessLimit: Int, settleWait: Double = 0.1) {
        self.maxConnections = maxConnections
        self.perProcessLimit = perProcessLimit
        self.settleWait = settleWait
    }

    /// Admits a connection on `fd` from process `pid`: refused when its process has its share
    /// open; when the table is full, the longest-idle connection is closed for it (never one in a
    /// request), or, while one is settling, its slot is waited for up to `settleWait`.
    func admit(_ fd: FileDescriptor, pid: Int32) -> Admission {
        let deadline = Clock.monotonicSeconds() + settleWait
        while true {
            let ticket = waiters.ticket()
            let decided = state.withLock { state -> Admission? in
                let mine = state.perProcess[pid, default: 0]
                guard mine < perProcessLimit else { return .overProcessShare(open: mine) }
                var evicted: Evicted?
                if state.entries.count >= maxConnections {
                    if let victim = Self.evictLongestIdle(&state) {
                        evicted = victim
                    } else if state.entries.values.contains(where: { $0.phase == .finishing }) {
                        return nil
                    } else {
                        return .full(open: state.entries.count)
                    }
                }
                state.lastNumber += 1
                state.entries[state.lastNumber] = Entry(fd: fd, pid: pid, phase: .idle(since: Clock.monotonicSeconds()))
                state.perProcess[pid, default: 0] += 1
                return .admitted(number: state.lastNumber, evicted: evicted)
            }
            let remaining = deadline - Clock.monotonicSeconds()
            guard decided == nil, remaining > 0 else {
                waiters.cancel(ticket)
                return decided ?? state.withLock { .full(open: $0.entries.count) }
            }
            // Woken or not, the table is looked at once more: a slot freed as the wait ended is taken.
            _ = waiters.wait(ticket, seconds: remaining)
        }
    }

    /// Closes the connection idle the longest (see `evict`) and drops it from the table.
    private static func evictLongestIdle(_ state: inout State) -> Evicted? {
        let idle = state.entries.compactMap { number, entry -> (Int, Double)? in
            if case .idle(let since) = entry.phase { return (number, since) }
            return nil
        }
        for (number, _) in idle.sorted(by: { $0.1 < $1.1 }) {
            if let evicted = evict(number, &state) { return evicted }
        }
        return nil
    }

    /// Closes connection `number` if it is idle and its socket holds no unread request byte, and
    /// drops it from the table (its thread ends at its next read, finding itself gone).
    private static func evict(_ number: Int, _ state: inout State) -> Evicted? {
        guard let entry = state.entries[number], case .idle = entry.phase else { return nil }
        var byte: UInt8 = 0
        guard recv(entry.fd.rawValue, &byte, 1, Int32(MSG_PEEK) | Int32(MSG_DONTWAIT)) <= 0 else { return nil }
        _ = shutdown(entry.fd.rawValue, Int32(SHUT_RDWR))
        state.remove(number)
        return Evicted(number: number, pid: entry.pid)
    }

    /// Closes connection `number` if it is idle now; false when a request is under way, its
    /// first bytes wait unread, or it has ended.
    func evictIfIdle(_ number: Int) -> Bool {
        state.withLock { Self.evict(number, &$0) != nil }
    }

    /// Request bytes arrived on `number`: busy from now; false if it was evicted meanwhile (an
    /// evicted connection has left the table).
    func beginRequest(_ number: Int) -> Bool {
        state.withLock { state in
            guard state.entries[number] != nil else { return false }
            state.entries[number]?.phase = .busy
            return true
        }
    }

    /// The last request buffered on `number` is answered next (its bytes are consumed after).
    func finishing(_ number: Int) {
        state.withLock { state in
            if state.entries[number]?.phase == .busy { state.entries[number]?.phase = .finishing }
        }
    }

    /// `number` is idle again, since its last answer (blank lines do not count): an admission
    /// waiting for a settling connection hears of it.
    func becomeIdle(_ number: Int, since: Double) {
        let changed = state.withLock { state -> Bool in
            switch state.entries[number]?.phase {
            case .busy?, .finishing?:
                state.entries[number]?.phase = .idle(since: since)
                return true
            default:
                return false
            }
        }
        if changed { waiters.wakeAll() }
    }

    /// Connection `number` has ended: `close` (closing its descriptor) runs under the lock, so no
    /// eviction touches a descriptor already closed; its slot is free at once.
    func ended(_ number: Int, close: () -> Void) {
        state.withLock { state in
            state.remove(number)
            close()
        }
        waiters.wakeAll()
    }

    /// Every open connection stops reading: each ends after the request in progress, if any.
    func stopReading() {
        state.withLock { state in
            for entry in state.entries.values { _ = shutdown(entry.fd.rawValue, Int32(SHUT_RD)) }
        }
    }

    /// Since when `number` has been idle; nil while a request is under way, or once it ended.
    func idleSince(_ number: Int) -> Double? {
        state.withLock { state in
            if case .idle(let since)? = state.entries[number]?.phase { return since }
            return nil
        }
    }

    var count: Int { state.withLock { $0.entries.count } }
}
