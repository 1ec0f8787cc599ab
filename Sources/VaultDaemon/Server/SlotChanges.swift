import Synchronization
import VaultCore

/// Wakes an admission waiting for a connection slot: a connection that has just answered its last
/// request becoming idle (so evictable), or one that has ended leaving the table. Only a
/// connection that is settling (`Connection.isSettling`: its last answer being sent, or its
/// descriptor closed) is waited for, and only briefly; one in the middle of a request never is,
/// so a table full of those still refuses at once.
final class SlotChanges: Sendable {
    private let waiters = WakeList()
    private let changes = Atomic<UInt64>(0)

    /// A slot may have freed: wakes the admissions waiting.
    func changed() {
        changes.add(1, ordering: .sequentiallyConsistent)
        waiters.wakeAll()
    }

    /// Counts `changed()`: an admission that looked at the table while this moved looks again
    /// rather than refuse on what it saw in passing.
    var count: UInt64 { changes.load(ordering: .sequentiallyConsistent) }

    /// `check`'s answer as soon as it has one, asking again after each change, for at most
    /// `seconds`; nil if none came. The ticket is taken before each check, so a change between
    /// the check and the wait is not missed (`WakeList`).
    func wait<Answer>(seconds: Double, _ check: () -> Answer?) -> Answer? {
        let deadline = Clock.monotonicSeconds() + seconds
        while true {
            let ticket = waiters.ticket()
            if let answer = check() {
                waiters.cancel(ticket)
                return answer
            }
            let remaining = deadline - Clock.monotonicSeconds()
            guard remaining > 0, waiters.wait(ticket, seconds: remaining) else { return check() }
        }
    }
}
