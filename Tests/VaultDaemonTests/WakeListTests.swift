import Dispatch
import Foundation
import Synchronization
import Testing
@testable import VaultDaemon

/// The list `vaultctl audit --follow` and the approver wait on: a change made after a waiter took
/// its ticket always wakes it, and a waiter that timed out leaves the list.
@Suite struct WakeListTests {
    @Test func aWaiterIsWokenAndATimedOutOneLeavesTheList() {
        let list = WakeList()
        let ticket = list.ticket()
        list.wakeAll()
        #expect(list.wait(ticket, seconds: 5))
        let late = list.ticket()
        #expect(!list.wait(late, seconds: 0.05))
        // Gone from the list: a wake now signals nothing, and a new waiter is still woken.
        list.wakeAll()
        #expect(late.wait(timeout: .now()) == .timedOut)
        let next = list.ticket()
        list.wakeAll()
        #expect(list.wait(next, seconds: 5))
    }

    /// Thousands of rounds of a waiter (ticket, then look at the state, then wait) racing a writer
    /// (change the state, then wake): every round ends with the waiter seeing the change or woken,
    /// never waiting out its deadline.
    @Test func noChangeMadeAfterATicketIsMissed() {
        let list = WakeList()
        let state = Atomic<Int>(0)
        let missed = Atomic<Int>(0)
        let rounds = 3_000
        let go = DispatchSemaphore(value: 0), done = DispatchSemaphore(value: 0)
        let waiter = Thread {
            for round in 1...rounds {
                go.wait()
                let ticket = list.ticket()
                if missed.load(ordering: .relaxed) == 0, state.load(ordering: .sequentiallyConsistent) < round,
                   !list.wait(ticket, seconds: 2) {
                    // Lost: the rounds after this one run through without waiting.
                    missed.add(1, ordering: .relaxed)
                }
                done.signal()
            }
        }
        waiter.start()
        for round in 1...rounds {
            go.signal()
            // Let the waiter reach its ticket at varying points before the change.
            if round % 3 == 0 { sched_yield() }
            state.store(round, ordering: .sequentiallyConsistent)
            list.wakeAll()
            done.wait()
        }
        #expect(missed.load(ordering: .relaxed) == 0)
    }
}
