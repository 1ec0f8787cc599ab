import Dispatch
import VaultCore
import VaultSystem

/// Threads waiting for something to change, woken together: a waiter takes a ticket *before* it
/// looks at the state it waits on, then waits on the ticket with a deadline, so a change made in
/// between is never missed. For connection threads only (it blocks), never the cooperative pool.
/// Every audit record calls `wakeAll`, so the list sits behind an adaptive lock (`AdaptiveLock`).
final class WakeList: Sendable {
    private let waiters = AdaptiveLock([DispatchSemaphore]())

    func ticket() -> DispatchSemaphore {
        let semaphore = DispatchSemaphore(value: 0)
        waiters.withLock { $0.append(semaphore) }
        return semaphore
    }

    /// Waits on `ticket` until woken or `seconds` pass; true when woken.
    func wait(_ ticket: DispatchSemaphore, seconds: Double) -> Bool {
        let woken = ticket.wait(timeout: .now() + max(0, seconds)) == .success
        if !woken { waiters.withLock { $0.removeAll { $0 === ticket } } }
        return woken
    }

    /// Gives back a ticket not waited on.
    func cancel(_ ticket: DispatchSemaphore) {
        waiters.withLock { $0.removeAll { $0 === ticket } }
    }

    func wakeAll() {
        for waiter in waiters.withLock({ list in defer { list.removeAll() }; return list }) { waiter.signal() }
    }
}
