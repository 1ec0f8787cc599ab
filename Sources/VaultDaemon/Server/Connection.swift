#if canImport(Glibc)
import Glibc
#endif
import CVaultShims
import Synchronization
import VaultCore
import VaultProtocol
import VaultSystem

/// One client connection, served by its own thread with blocking reads: a request wakes exactly
/// one thread, which answers it inline. The number of these threads is capped by
/// `--max-connections`. A connection is idle while nothing of a request has arrived: it ends when
/// its receive timeout (`--idle-timeout`) expires, and the daemon may evict it to admit a new one
/// (`ConnectionTable`, where its phase is kept). Once a request's first byte arrives, its whole
/// line must arrive within `--request-timeout`, however slowly the bytes trickle in; a request
/// being received or answered is never evicted. What to do next is decided by `RequestReader`;
/// this type does the reads, waits and sends.
final class Connection: Sendable {
    let number: Int
    let peerPID: Int32
    private let fd: FileDescriptor
    private let peer: PeerProcess
    private let dispatcher: RequestDispatcher
    private let logger: Logger
    private let events: RateLimitedLog
    private let idleTimeout: Double
    private let requestTimeout: Double
    private let busyPoll: BusyPoll
    private let table: ConnectionTable

    /// A connection `table` admitted as `number`.
    init(
        number: Int, fd: FileDescriptor, peerPID: Int32, dispatcher: RequestDispatcher, logger: Logger, events: RateLimitedLog,
        idleTimeout: Double, requestTimeout: Double, busyPoll: BusyPoll, table: ConnectionTable
    ) {
        self.number = number
        self.fd = fd
        self.peerPID = peerPID
        peer = PeerProcess(socket: fd, pid: peerPID)
        self.dispatcher = dispatcher
        self.logger = logger
        self.events = events
        self.idleTimeout = idleTimeout
        self.requestTimeout = requestTimeout
        self.busyPoll = busyPoll
        self.table = table
    }

    /// Starts the connection's thread; `onClose` runs on it after the socket is closed.
    func start(onClose: @escaping @Sendable () -> Void) -> Bool {
        DetachedThread.start(stackSize: 512 * 1024) { [self] in
            serve()
            onClose()
        }
    }

    /// Closes a connection whose thread could not be started: its socket and what its peer holds
    /// of the process (a pidfd, its /proc directory).
    func abandon() {
        table.ended(number) { fd.close() }
        peer.close()
    }

    private func serve() {
        UnixSocket.setTimeouts(fd, seconds: 10)
        var reader = RequestReader(openedAt: Clock.monotonicSeconds(), idleTimeout: idleTimeout, requestTimeout: requestTimeout, spinBudget: busyPoll.budget)
        var scratch = [UInt8](repeating: 0, count: 64 * 1024)
        /// Bytes in the reader still unread on the socket (see the read below).
        var peeked = 0
        /// Whether this thread counts among `busyPoll`'s active ones (from a wake-up to its next sleep).
        var active = false
        /// Who sent what `reader` holds.
        var senders = MessageSenders()
        defer {
            if active { busyPoll.leave() }
            reader.clear()
            senders.clear()
            scratch.withUnsafeMutableBytes { SecretBytes.wipe($0) }
            // Before the socket closes: an approver's registration polls it.
            dispatcher.connectionClosed(peer)
            table.ended(number) { fd.close() }
            peer.close()
        }
        while true {
            drain: while true {
                switch reader.next() {
                case .request(var line):
                    defer { line.withUnsafeMutableBytes { SecretBytes.wipe($0) } }
                    let sender: PeerProcess? = switch senders.sender(connector: peerPID) {
                    case .connector: peer
                    case .other(let process): process
                    case .unknown: nil
                    }
                    let response = dispatcher.handle(line: &line, connection: peer, sender: sender)
                    // Nothing more buffered: settling from here (`ConnectionTable.Phase.finishing`),
                    // since the client may read the answer, close and connect again before this
                    // thread is idle (woken by the answer, it can even run first on this CPU).
                    if reader.isEmpty { table.finishing(number) }
                    guard send(response), consume(&peeked, scratch: &scratch) else { return }
                case .tooLong:
                    logger.warning("connection \(number) (pid \(peerPID)) sent a request over \(MessageCodec.maxRequestBytes) bytes; closing it")
                    _ = send(ResponseLine(id: nil, .failure(ErrorBody(
                        .tooLarge, "request line over \(MessageCodec.maxRequestBytes / 1024) KiB; the connection is closed"))))
                    return
                case .drained:
                    guard consume(&peeked, scratch: &scratch) else { return }
                    break drain
                }
            }
            let (idleSince, wait) = reader.drained(at: Clock.monotonicSeconds())
            if let idleSince {
                senders.clear()
                table.becomeIdle(number, since: idleSince)
            }
            guard case .wait(let seconds, let spin) = wait else {
                if reader.isMidRequest { unfinishedRequest() }
                return
            }
            // Wait, then claim the connection before consuming anything: once bytes are read here,
            // an eviction (which only takes idle connections) can no longer drop them unanswered.
            let count: Int
            do {
                // Spinning finds the next request before this core sleeps (`BusyPoll`).
                var ready = false
                if spin, active {
                    ready = busyPoll.spin(on: fd)
                    reader.spun(ready: ready)
                }
                if !ready {
                    if active { busyPoll.leave() }
                    active = false
                    guard try UnixSocket.waitReadable(fd, seconds: seconds) else {
                        if reader.isMidRequest {
                            unfinishedRequest()
                        } else {
                            logger.debug("connection \(number) closed after \(Int(idleTimeout)) s idle")
                        }
                        return
                    }
                    busyPoll.enter()
                    active = true
                    reader.woke(at: Clock.monotonicSeconds())
                }
                // poll said readable: this does not wait (the socket's 10 s timeout is a backstop).
                // The bytes are copied, not consumed, until the answer has been sent: consuming
                // them frees the client's send buffer, and the kernel wakes a client blocked in
                // read(2) for that (its write-space wake-up does not look at what the sleeper
                // waits for), so consumed at once they would wake it a request's work before its
                // answer does. Consumed right after the answer, they find it already woken by
                // the answer and off the socket's wait queue: it wakes once per request
                // (docs/performance.md, part F).
                var sender: pid_t = 0
                count = try scratch.withUnsafeMutableBytes { buffer in
                    try retryingOnInterrupt { vault_peek_from_sender(fd.rawValue, buffer.baseAddress, buffer.count, &sender) }
                }
                if count > 0 { senders.received(from: sender, connector: peerPID) { MessageSenders.open(socket: fd, pid: sender) } }
                // Claimed once bytes are seen, before any is consumed: meanwhile an eviction finds
                // them unread and leaves the connection alone. At the end of input it is never
                // claimed: a client that closed leaves an idle connection, which an admission may
                // evict, not a busy one it must refuse for.
                if count > 0 { guard table.beginRequest(number) else { return } }
            } catch {
                return
            }
            if count == 0 { return }
            peeked = count
            scratch.withUnsafeBytes { reader.received(UnsafeRawBufferPointer(rebasing: $0[0..<count])) }
            scratch.withUnsafeMutableBytes { SecretBytes.wipe(UnsafeMutableRawBufferPointer(rebasing: $0[0..<count])) }
        }
    }

    /// Reads (and wipes) the `peeked` bytes, which are already in the line buffer, so that the
    /// client's next write is not taken for them; false if the socket failed.
    private func consume(_ peeked: inout Int, scratch: inout [UInt8]) -> Bool {
        defer { peeked = 0 }
        return scratch.withUnsafeMutableBytes { buffer in
            while peeked > 0 {
                let region = UnsafeMutableRawBufferPointer(rebasing: buffer[0..<peeked])
                defer { SecretBytes.wipe(region) }
                // They are there: this read does not wait.
                guard let count = try? fd.read(into: region), count > 0 else { return false }
                peeked -= count
            }
            return true
        }
    }

    private func unfinishedRequest() {
        let limit = "\(requestTimeout.secondsText) s"
        events.record(
            "connections closed: request line not finished within \(limit)",
            detail: "connection \(number) (pid \(peerPID)) did not finish its request line within \(limit); closing it")
        _ = send(ResponseLine(id: nil, .failure(ErrorBody(
            .badRequest, "the request line did not arrive whole within \(limit) of its first byte; the connection is closed"))))
    }

    private func send(_ response: ResponseLine) -> Bool {
        var bytes = MessageCodec.encode(response)
        defer { bytes.withUnsafeMutableBytes { SecretBytes.wipe($0) } }
        do {
            try fd.sendAll(bytes)
            return true
        } catch {
            logger.debug("connection \(number): write failed (\(error)); closing")
            return false
        }
    }
}
