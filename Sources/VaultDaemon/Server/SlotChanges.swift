import VaultCore

/// Wakes an admission waiting for a connection slot: a connection that has just answered its last
/// request becoming idle (so evictable), or one that has ended leaving the table. Only a
/// connection that is settling (`Connection.isSettling`: its last answer being sent, or its
/// descriptor closed) is waited for, and only briefly; one in the middle of a request never is,
/// so a table full of those still refuses at once.
final class SlotChanges: Sendable {
    private let waiters = WakeList()

    /// A slot may have freed: wakes the admissions waiting.
    func changed() { waiters.wakeAll() }

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
