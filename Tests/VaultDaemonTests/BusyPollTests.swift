import Foundation
import Synchronization
import Testing
@testable import VaultDaemon
import VaultCore
import VaultSystem

/// `BusyPoll.spin` on a socketpair: it ends when the socket becomes readable (bytes or a hang-up),
/// at its budget when nothing comes, at once when spinning is off, and as soon as more threads are
/// at work than it leaves cores for. Budgets are long where the test ends the spin itself, so that
/// a spin that did not end for the right reason would show as a wait of minutes, not pass.
@Suite struct BusyPollTests {
    func pair() -> (FileDescriptor, FileDescriptor) {
        var fds: [Int32] = [0, 0]
        #expect(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &fds) == 0)
        return (FileDescriptor(rawValue: fds[0]), FileDescriptor(rawValue: fds[1]))
    }

    /// A spin on a thread of its own: `done` is signalled once `result` holds what it returned.
    final class BackgroundSpin: Sendable {
        let done = DispatchSemaphore(value: 0)
        private let value = AdaptiveLock<Bool?>(nil)
        var result: Bool? { value.withLock { $0 } }

        init(_ busyPoll: BusyPoll, on fd: FileDescriptor) {
            Thread.detachNewThread { [self] in
                let readable = busyPoll.spin(on: fd)
                value.withLock { $0 = readable }
                done.signal()
            }
        }
    }

    func waitUntilSpinning(_ busyPoll: BusyPoll) -> Bool {
        let deadline = Clock.monotonicSeconds() + 10
        while busyPoll.spinning == 0 && Clock.monotonicSeconds() < deadline { usleep(1_000) }
        return busyPoll.spinning > 0
    }

    @Test func aSpinEndsWhenBytesArrive() throws {
        let (server, client) = pair()
        defer { server.close(); client.close() }
        let busyPoll = BusyPoll(budget: 600, cores: 2)
        busyPoll.enter()
        let spin = BackgroundSpin(busyPoll, on: server)
        #expect(waitUntilSpinning(busyPoll))
        try client.sendAll(Array("{}\n".utf8))
        #expect(spin.done.wait(timeout: .now() + 10) == .success)
        #expect(spin.result == true)
        #expect(busyPoll.spinning == 0)
    }

    @Test func aSpinEndsWhenThePeerHangsUp() {
        let (server, client) = pair()
        defer { server.close() }
        let busyPoll = BusyPoll(budget: 600, cores: 2)
        busyPoll.enter()
        let spin = BackgroundSpin(busyPoll, on: server)
        #expect(waitUntilSpinning(busyPoll))
        client.close()
        #expect(spin.done.wait(timeout: .now() + 10) == .success)
        #expect(spin.result == true)
    }

    @Test func aSpinEndsAtItsBudgetWhenNothingComes() {
        let (server, client) = pair()
        defer { server.close(); client.close() }
        let busyPoll = BusyPoll(budget: 0.02, cores: 2)
        busyPoll.enter()
        #expect(!busyPoll.spin(on: server))
        // And a spin that is off does not look at all, even with bytes waiting.
        try? client.sendAll(Array("{}\n".utf8))
        #expect(!BusyPoll(budget: 0, cores: 2).spin(on: server))
        #expect(BusyPoll(budget: 0.02, cores: 2).spin(on: server))
    }

    /// On one core a spin would take the core the client needs to send its next request.
    @Test func onOneCoreNothingSpins() throws {
        let (server, client) = pair()
        defer { server.close(); client.close() }
        try client.sendAll(Array("{}\n".utf8))
        let busyPoll = BusyPoll(budget: 600, cores: 1)
        busyPoll.enter()
        #expect(busyPoll.budget == 0)
        #expect(!busyPoll.spin(on: server))
    }

    /// On 2 cores a thread spins only while it is the only one at work; on 8, while at most 4 are.
    @Test func aSpinEndsAsSoonAsOtherThreadsNeedTheCores() {
        for (cores, others) in [(2, 1), (8, 4)] {
            let (server, client) = pair()
            defer { server.close(); client.close() }
            let busyPoll = BusyPoll(budget: 600, cores: cores)
            busyPoll.enter()
            for _ in 0..<(others - 1) { busyPoll.enter() }
            let spin = BackgroundSpin(busyPoll, on: server)
            #expect(waitUntilSpinning(busyPoll), "\(cores) cores, \(others) at work with the spinner")
            // One more request at work: now the spinner would take a core it needs.
            busyPoll.enter()
            #expect(spin.done.wait(timeout: .now() + 10) == .success, "\(cores) cores: the spin went on")
            #expect(spin.result == false)
            // Too many at work already: it does not start.
            #expect(!busyPoll.spin(on: server))
            busyPoll.leave()
            busyPoll.leave()
        }
    }
}
