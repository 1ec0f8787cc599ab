import Foundation
import Testing
@testable import VaultDaemon
import VaultCore
import VaultProtocol
import VaultStores
import VaultTestSupport
import VaultSystem

/// One connection over a socketpair: pipelined requests answered in order, blank lines ignored,
/// an oversized line refused before it is parsed and the connection closed, a request line that
/// trickles in cut at its deadline, and only idle connections evictable.
@Suite struct ConnectionTests {
    let log = RecordingLogHandler()
    let table = ConnectionTable(maxConnections: 8, perProcessLimit: 8)

    /// A connection served over a socketpair: the daemon's `Connection`, the client's end, and a
    /// semaphore signalled when the connection has closed.
    func connect(
        requestTimeout: Double = 5, idleTimeout: Double = 5, busyPoll: BusyPoll = BusyPoll(budget: BusyPoll.defaultBudget)
    ) -> (connection: Connection, client: FileDescriptor, closed: DispatchSemaphore) {
        var fds: [Int32] = [0, 0]
        #expect(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &fds) == 0)
        let daemonSide = FileDescriptor(rawValue: fds[0]), clientSide = FileDescriptor(rawValue: fds[1])
        let directory = TemporaryDirectory(prefix: "vault-connection")
        let configuration = DaemonConfiguration(socketPath: directory.file("s"), vaultFilePath: directory.file("v.db"), environment: [:])
        let logger = Logger(handler: log)
        let dispatcher = RequestDispatcher(
            store: ActiveStore(store: InMemoryStore(), reason: "test"), catalog: StoreCatalog(configuration: configuration),
            socketPath: configuration.socketPath, logger: logger)
        let closed = DispatchSemaphore(value: 0)
        guard case .admitted(let number, nil) = table.admit(daemonSide, pid: getpid()) else { preconditionFailure("admitted") }
        let connection = Connection(
            number: number, fd: daemonSide, peerPID: getpid(), dispatcher: dispatcher, logger: logger, events: RateLimitedLog(logger: logger),
            idleTimeout: idleTimeout, requestTimeout: requestTimeout, busyPoll: busyPoll, table: table)
        #expect(connection.start { closed.signal() })
        return (connection, clientSide, closed)
    }

    /// Everything the daemon sends until it closes, as lines.
    func receiveAll(_ clientSide: FileDescriptor) throws -> [String] {
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let count: Int
            do {
                count = try buffer.withUnsafeMutableBytes { try clientSide.read(into: $0) }
            } catch let error as Errno where error == Errno(ECONNRESET) {
                // Closed with bytes of ours unread: what it sent before is read first, then this.
                break
            }
            if count == 0 { break }
            received += buffer[0..<count]
        }
        return String(decoding: received, as: UTF8.self).split(separator: "\n").map(String.init)
    }

    func serve(_ input: [UInt8], closeWriting: Bool = true) throws -> [String] {
        let (_, clientSide, closed) = connect()
        defer { clientSide.close() }
        try clientSide.sendAll(input)
        if closeWriting { shutdown(clientSide.rawValue, Int32(SHUT_WR)) }
        let lines = try receiveAll(clientSide)
        #expect(closed.wait(timeout: .now() + 10) == .success)
        return lines
    }

    @Test func pipelinedRequestsAreAnsweredInOrderOnOneConnection() throws {
        let lines = try serve(Array(("""
            {"id":1,"op":"set","service":"s","account":"a","secret":"x"}

            \t
            not json
            {"id":2,"op":"get","service":"s","account":"a"}\r
            {"id":3,"op":"delete","service":"s","account":"a"}

            """).utf8))
        #expect(lines.count == 4)
        #expect(lines[0].contains(#""id":1"#) && lines[0].contains(#""ok":true"#))
        #expect(lines[1].contains(#""id":null"#) && lines[1].contains("bad_request"))
        #expect(lines[2].contains(#""id":2"#) && lines[2].contains(#""secret":"x""#))
        #expect(lines[3].contains(#""id":3"#) && lines[3].contains(#""ok":true"#))
    }

    /// Bytes the client has sent that the daemon has not consumed yet (SIOCOUTQ of its end).
    func unconsumed(_ clientSide: FileDescriptor) -> Int32 {
        var count: Int32 = 0
        #expect(ioctl(clientSide.rawValue, UInt(TIOCOUTQ), &count) == 0)
        return count
    }

    /// vaultd peeks at request bytes and consumes them right after it answers: a request sent in
    /// two pieces, split anywhere (in a line, at its end, in the next one), is answered once when
    /// whole, and every byte is consumed both when a piece ends mid-line and once it is answered.
    @Test func requestsInPiecesAreAnsweredOnceAndEveryByteIsConsumed() throws {
        let requests = Array("{\"id\":1,\"op\":\"status\"}\n{\"id\":2,\"op\":\"status\"}\n".utf8)
        let firstEnd = requests.firstIndex(of: UInt8(ascii: "\n"))! + 1
        for split in [1, 10, firstEnd - 1, firstEnd, firstEnd + 1, requests.count - 1, requests.count] {
            let (_, clientSide, closed) = connect()
            defer { clientSide.close() }
            try clientSide.sendAll(Array(requests[..<split]))
            let deadline = Clock.monotonicSeconds() + 10
            while unconsumed(clientSide) > 0 && Clock.monotonicSeconds() < deadline { usleep(1_000) }
            #expect(unconsumed(clientSide) == 0, "split at \(split): the first piece was left unread")
            if split < requests.count { try clientSide.sendAll(Array(requests[split...])) }
            shutdown(clientSide.rawValue, Int32(SHUT_WR))
            let lines = try receiveAll(clientSide)
            #expect(lines.count == 2, "split at \(split): \(lines)")
            #expect(lines.first?.contains(#""id":1"#) == true && lines.last?.contains(#""id":2"#) == true, "split at \(split): \(lines)")
            #expect(lines.allSatisfy { $0.contains(#""ok":true"#) }, "split at \(split): \(lines)")
            #expect(closed.wait(timeout: .now() + 10) == .success)
        }
    }

    /// Sends `bytes` in one `sendmsg` with `descriptor` attached (SCM_RIGHTS).
    func send(_ bytes: [UInt8], passing descriptor: Int32, on socket: FileDescriptor) {
        // cmsghdr (length, level, type) then the descriptor, padded: CMSG_SPACE(4) on 64-bit Linux.
        let headerSize = MemoryLayout<cmsghdr>.size
        var control = [UInt8](repeating: 0, count: headerSize + 8)
        control.withUnsafeMutableBytes { raw in
            var header = cmsghdr()
            header.cmsg_len = headerSize + MemoryLayout<Int32>.size
            header.cmsg_level = SOL_SOCKET
            header.cmsg_type = Int32(SCM_RIGHTS)
            raw.storeBytes(of: header, as: cmsghdr.self)
            raw.storeBytes(of: descriptor, toByteOffset: headerSize, as: Int32.self)
        }
        var payload = bytes
        let sent = payload.withUnsafeMutableBytes { data in
            control.withUnsafeMutableBytes { controlBytes in
                var vector = iovec(iov_base: data.baseAddress, iov_len: data.count)
                return withUnsafeMutablePointer(to: &vector) { vectorPointer in
                    var message = msghdr()
                    message.msg_iov = vectorPointer
                    message.msg_iovlen = 1
                    message.msg_control = controlBytes.baseAddress
                    message.msg_controllen = controlBytes.count
                    return sendmsg(socket.rawValue, &message, 0)
                }
            }
        }
        #expect(sent == bytes.count)
    }

    /// A client may attach descriptors to its bytes (SCM_RIGHTS); the peek stops at them and so
    /// must the consuming read. Both requests are answered once, and the descriptor is not kept:
    /// once the test closes its copy of a pipe's write end, the read end sees the hang-up, which it
    /// would not if vaultd's process held a copy.
    @Test func descriptorsAttachedToARequestAreDroppedAndTheRequestsAnswered() throws {
        let (_, clientSide, closed) = connect()
        defer { clientSide.close() }
        var pipeEnds: [Int32] = [0, 0]
        #expect(pipe(&pipeEnds) == 0)
        defer { close(pipeEnds[0]) }
        try clientSide.sendAll(Array("{\"id\":1,".utf8))
        send(Array("\"op\":\"status\"}\n{\"id\":2,".utf8), passing: pipeEnds[1], on: clientSide)
        try clientSide.sendAll(Array("\"op\":\"status\"}\n".utf8))
        shutdown(clientSide.rawValue, Int32(SHUT_WR))
        let lines = try receiveAll(clientSide)
        #expect(lines.count == 2 && lines[0].contains(#""id":1"#) && lines[1].contains(#""id":2"#), "\(lines)")
        #expect(closed.wait(timeout: .now() + 10) == .success)
        close(pipeEnds[1])
        var readEnd = pollfd(fd: pipeEnds[0], events: Int16(POLLIN), revents: 0)
        #expect(poll(&readEnd, 1, 5_000) == 1 && readEnd.revents & Int16(POLLHUP) != 0, "a copy of the write end is still open")
    }

    @Test func anOversizedLineIsRefusedBeforeItEndsAndTheConnectionCloses() throws {
        // No newline ever comes: the cap is checked as bytes arrive.
        let lines = try serve([UInt8](repeating: UInt8(ascii: "a"), count: MessageCodec.maxRequestBytes + 10), closeWriting: false)
        #expect(lines.count == 1 && lines[0].contains("too_large"))
    }

    @Test func aRequestTrickledByteByByteIsCutAtTheRequestDeadline() throws {
        // Each byte arrives well within the idle timeout; the whole line never does.
        let (_, clientSide, closed) = connect(requestTimeout: 1, idleTimeout: 30)
        defer { clientSide.close() }
        let start = Clock.monotonicSeconds()
        let trickled = DispatchSemaphore(value: 0)
        let trickle = Thread {
            defer { trickled.signal() }
            for byte in Array(#"{"id":1,"op":"status""#.utf8) {
                guard (try? clientSide.sendAll([byte])) != nil else { return }
                usleep(200_000)
            }
        }
        trickle.start()
        let lines = try receiveAll(clientSide)
        // Once vaultd has closed its end the next byte fails (EPIPE), so the writer stops before
        // the descriptor is closed here.
        #expect(trickled.wait(timeout: .now() + 10) == .success)
        #expect(closed.wait(timeout: .now() + 10) == .success)
        let elapsed = Clock.monotonicSeconds() - start
        #expect(elapsed < 8, "closed after \(elapsed) s")
        #expect(lines.count == 1 && lines[0].contains("bad_request") && lines[0].contains("within 1 s"))
        #expect(log.recorded.contains { $0.contains("did not finish its request line within 1 s") })
    }

    @Test func blankLinesAreNoProgressAndDoNotRestartTheDeadline() throws {
        // A space, then "\n " again and again: every blank line completes at once and a new
        // partial one begins, so a deadline restarted by blank lines would never come.
        let (connection, clientSide, closed) = connect(requestTimeout: 1, idleTimeout: 30)
        defer { clientSide.close() }
        let start = Clock.monotonicSeconds()
        let trickled = DispatchSemaphore(value: 0)
        let trickle = Thread {
            defer { trickled.signal() }
            guard (try? clientSide.sendAll(Array(" ".utf8))) != nil else { return }
            for _ in 0..<40 {
                usleep(150_000)
                guard (try? clientSide.sendAll(Array("\n ".utf8))) != nil else { return }
            }
        }
        trickle.start()
        let lines = try receiveAll(clientSide)
        #expect(trickled.wait(timeout: .now() + 10) == .success)
        #expect(closed.wait(timeout: .now() + 10) == .success)
        #expect(Clock.monotonicSeconds() - start < 5)
        #expect(lines.count == 1 && lines[0].contains("within 1 s"), "\(lines)")
        #expect(table.idleSince(connection.number) == nil)
    }

    @Test func onlyAnIdleConnectionCanBeEvicted() throws {
        let (connection, clientSide, closed) = connect(requestTimeout: 30, idleTimeout: 30)
        defer { clientSide.close() }
        // Half a request: mid-request, so it is not evicted.
        try clientSide.sendAll(Array(#"{"id":1,"op":"#.utf8))
        let deadline = Clock.monotonicSeconds() + 10
        while table.idleSince(connection.number) != nil && Clock.monotonicSeconds() < deadline { usleep(5_000) }
        #expect(table.idleSince(connection.number) == nil)
        #expect(!table.evictIfIdle(connection.number))
        // Finished and answered: idle again, and now it can be evicted.
        try clientSide.sendAll(Array("\"status\"}\n".utf8))
        var reply = [UInt8](repeating: 0, count: 4096)
        #expect(try reply.withUnsafeMutableBytes { try clientSide.read(into: $0) } > 0)
        while table.idleSince(connection.number) == nil && Clock.monotonicSeconds() < deadline { usleep(5_000) }
        #expect(table.evictIfIdle(connection.number))
        #expect(try receiveAll(clientSide).isEmpty)
        #expect(closed.wait(timeout: .now() + 10) == .success)
    }
}

/// A connection that spins after an answer (`BusyPoll`) is still an idle connection: it answers
/// the request that ends the spin, can be evicted and stopped while spinning, and a spin ends at
/// once when either happens, not at its budget.
extension ConnectionTests {
    /// Sends a status request and reads its answer.
    func roundTrip(_ clientSide: FileDescriptor, id: Int) throws -> String {
        try clientSide.sendAll(Array("{\"id\":\(id),\"op\":\"status\"}\n".utf8))
        var reply = [UInt8](repeating: 0, count: 4096)
        let count = try reply.withUnsafeMutableBytes { try clientSide.read(into: $0) }
        return String(decoding: reply[0..<max(count, 0)], as: UTF8.self)
    }

    /// A connection whose spins last up to a minute (so that only what the test does ends one),
    /// on 2 cores, as `connect` gives.
    func connectWithSpinning() -> (busyPoll: BusyPoll, connection: Connection, client: FileDescriptor, closed: DispatchSemaphore) {
        let busyPoll = BusyPoll(budget: 60, cores: 2)
        let (connection, clientSide, closed) = connect(requestTimeout: 60, idleTimeout: 60, busyPoll: busyPoll)
        return (busyPoll, connection, clientSide, closed)
    }

    /// Two requests back to back, so that the connection spins after the second answer (with a
    /// budget of a minute, so that only what the test does can end it); true once it spins.
    func startSpinning(_ clientSide: FileDescriptor, _ busyPoll: BusyPoll) throws -> Bool {
        #expect(try roundTrip(clientSide, id: 1).contains(#""id":1"#))
        #expect(try roundTrip(clientSide, id: 2).contains(#""id":2"#))
        let deadline = Clock.monotonicSeconds() + 10
        while busyPoll.spinning == 0 && Clock.monotonicSeconds() < deadline { usleep(1_000) }
        return busyPoll.spinning == 1
    }

    @Test func aRequestArrivingDuringASpinIsAnsweredAndTheSpinGoesOn() throws {
        let (busyPoll, connection, clientSide, closed) = connectWithSpinning()
        defer { clientSide.close() }
        #expect(try startSpinning(clientSide, busyPoll))
        #expect(table.idleSince(connection.number) != nil)
        for id in 3...20 { #expect(try roundTrip(clientSide, id: id).contains("\"id\":\(id),\"ok\":true")) }
        // Each of those found a thread spinning, not asleep.
        #expect(busyPoll.caught >= 18, "\(busyPoll.caught) of 18 requests found the connection spinning")
        shutdown(clientSide.rawValue, Int32(SHUT_WR))
        #expect(try receiveAll(clientSide).isEmpty)
        #expect(closed.wait(timeout: .now() + 10) == .success)
        #expect(busyPoll.spinning == 0)
        #expect(busyPoll.activeThreads == 0)
    }

    @Test func aSpinningConnectionCanBeEvictedAndEndsAtOnce() throws {
        let (busyPoll, connection, clientSide, closed) = connectWithSpinning()
        defer { clientSide.close() }
        #expect(try startSpinning(clientSide, busyPoll))
        #expect(table.evictIfIdle(connection.number))
        #expect(try receiveAll(clientSide).isEmpty)
        #expect(closed.wait(timeout: .now() + 10) == .success)
        // No longer counted at work: spinning stays possible for the connections left.
        #expect(busyPoll.activeThreads == 0)
    }

    @Test func aSpinningConnectionStopsWhenTheDaemonStopsReading() throws {
        let (busyPoll, connection, clientSide, closed) = connectWithSpinning()
        defer { clientSide.close() }
        #expect(try startSpinning(clientSide, busyPoll))
        table.stopReading()
        #expect(closed.wait(timeout: .now() + 10) == .success)
        #expect(busyPoll.activeThreads == 0)
    }

    /// A connection with one request (`vaultctl get`'s way) never spins.
    @Test func aConnectionWithOneRequestDoesNotSpin() throws {
        let (busyPoll, connection, clientSide, closed) = connectWithSpinning()
        defer { clientSide.close() }
        #expect(try roundTrip(clientSide, id: 1).contains(#""id":1"#))
        let deadline = Clock.monotonicSeconds() + 10
        while table.idleSince(connection.number) == nil && Clock.monotonicSeconds() < deadline { usleep(1_000) }
        // Idle (so past the point where it would spin) and asleep: the spin would show within its
        // first turn; give it many.
        usleep(50_000)
        #expect(busyPoll.spinning == 0 && busyPoll.caught == 0)
        shutdown(clientSide.rawValue, Int32(SHUT_WR))
        #expect(try receiveAll(clientSide).isEmpty)
        #expect(closed.wait(timeout: .now() + 10) == .success)
        #expect(busyPoll.activeThreads == 0)
    }
}
