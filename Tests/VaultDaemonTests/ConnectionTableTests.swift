#if canImport(Glibc)
import Glibc
#endif
import Dispatch
import Testing
@testable import VaultDaemon
import VaultCore
import VaultSystem

/// Admission, eviction and settling in one table: one process's share, the longest-idle closed
/// for a newcomer (never one in a request, nor one whose request bytes wait unread), a settling
/// connection waited for briefly, a full table of busy ones refused at once.
@Suite struct ConnectionTableTests {
    /// A connected socket pair: the daemon's end (kept by the table) and the client's.
    final class Pair {
        let daemon: FileDescriptor
        let client: FileDescriptor
        init() {
            var fds: [Int32] = [0, 0]
            precondition(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &fds) == 0)
            (daemon, client) = (FileDescriptor(rawValue: fds[0]), FileDescriptor(rawValue: fds[1]))
        }
        deinit {
            daemon.close()
            client.close()
        }
    }

    func admitted(_ admission: ConnectionTable.Admission) -> Int? {
        if case .admitted(let number, _) = admission { return number }
        return nil
    }

    @Test func oneProcessGetsItsShareAndNoMore() throws {
        let table = ConnectionTable(maxConnections: 10, perProcessLimit: 2)
        let pairs = (0..<4).map { _ in Pair() }
        #expect(admitted(table.admit(pairs[0].daemon, pid: 7)) != nil)
        #expect(admitted(table.admit(pairs[1].daemon, pid: 7)) != nil)
        #expect(table.admit(pairs[2].daemon, pid: 7) == .overProcessShare(open: 2))
        #expect(admitted(table.admit(pairs[3].daemon, pid: 8)) != nil)
    }

    @Test func aFullTableClosesTheLongestIdleForANewcomer() throws {
        let table = ConnectionTable(maxConnections: 2, perProcessLimit: 10)
        let (old, young, new) = (Pair(), Pair(), Pair())
        let first = try requireValue(admitted(table.admit(old.daemon, pid: 1)))
        let second = try requireValue(admitted(table.admit(young.daemon, pid: 2)))
        table.finishing(first)
        _ = table.beginRequest(first)
        table.becomeIdle(first, since: 10)
        _ = table.beginRequest(second)
        table.becomeIdle(second, since: 20)
        guard case .admitted(let third, let evicted) = table.admit(new.daemon, pid: 3) else { Issue.record("refused"); return }
        #expect(evicted == .init(number: first, pid: 1) && third > second)
        // Its thread finds itself gone, and its client sees the end.
        #expect(!table.beginRequest(first))
        var byte: UInt8 = 0
        #expect(read(old.client.rawValue, &byte, 1) == 0)
        #expect(table.count == 2)
    }

    @Test func aConnectionInARequestOrWithBytesWaitingIsNeverEvicted() throws {
        let table = ConnectionTable(maxConnections: 2, perProcessLimit: 10, settleWait: 0.05)
        let (busy, waiting, new) = (Pair(), Pair(), Pair())
        let first = try requireValue(admitted(table.admit(busy.daemon, pid: 1)))
        _ = try requireValue(admitted(table.admit(waiting.daemon, pid: 2)))
        _ = table.beginRequest(first)
        // Idle by the table, but the first byte of a request waits unread.
        try waiting.client.sendAll(Array("{".utf8))
        #expect(table.admit(new.daemon, pid: 3) == .full(open: 2))
        #expect(table.count == 2)
    }

    @Test func aSettlingConnectionIsWaitedForAndABusyTableRefusedAtOnce() throws {
        let table = ConnectionTable(maxConnections: 1, perProcessLimit: 10, settleWait: 5)
        let (settling, new) = (Pair(), Pair())
        let first = try requireValue(admitted(table.admit(settling.daemon, pid: 1)))
        _ = table.beginRequest(first)
        table.finishing(first)
        let start = Clock.monotonicSeconds()
        DispatchQueue.global().asyncAfter(deadline: .now() + 0.05) { table.ended(first) {} }
        #expect(admitted(table.admit(new.daemon, pid: 2)) != nil, "admitted once the settling connection left")
        #expect(Clock.monotonicSeconds() - start < 4)
        // Now one busy connection and nothing settling: refused without waiting.
        let other = Pair()
        let second = try requireValue(table.idleSince(2).map { _ in 2 })
        _ = table.beginRequest(second)
        let refusedAt = Clock.monotonicSeconds()
        #expect(table.admit(other.daemon, pid: 3) == .full(open: 1))
        #expect(Clock.monotonicSeconds() - refusedAt < 1)
    }

    @Test func anEndedConnectionFreesItsSlotAndItsProcessShare() throws {
        let table = ConnectionTable(maxConnections: 1, perProcessLimit: 1, settleWait: 0)
        let (one, two) = (Pair(), Pair())
        let first = try requireValue(admitted(table.admit(one.daemon, pid: 5)))
        table.ended(first) {}
        #expect(admitted(table.admit(two.daemon, pid: 5)) != nil)
        #expect(table.idleSince(first) == nil)
    }
}
