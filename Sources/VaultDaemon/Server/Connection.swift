#if canImport(Glibc)
import Glibc
#endif
import CVaultShims
import Synchronization
import VaultCore
import VaultProtocol

/// One client connection, served by its own thread with blocking reads: a request wakes exactly
/// one thread, which answers it inline. The number of these threads is capped by
/// `--max-connections`. A connection is idle while nothing of a request has arrived: it ends when
/// its receive timeout (`--idle-timeout`) expires, and the daemon may evict it (`evictIfIdle`) to
/// admit a new one. Once a request's first byte arrives, its whole line must arrive within
/// `--request-timeout`, however slowly the bytes trickle in; a request being received or answered
/// is never evicted.
final class Connection: Sendable {
    /// Where the connection is, for eviction. `closed`: the thread has closed the descriptor.
    private enum State {
        case idle(since: Double)
        case busy
        /// The last request buffered is being answered; idle once its bytes are consumed.
        case finishing
        case evicted
        case closed
    }

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
    private let slotChanges: SlotChanges
    private let state = AdaptiveLock(State.idle(since: Clock.monotonicSeconds()))

    init(
        number: Int, fd: FileDescriptor, peerPID: Int32, dispatcher: RequestDispatcher, logger: Logger, events: RateLimitedLog,
        idleTimeout: Double, requestTimeout: Double, busyPoll: BusyPoll, slotChanges: SlotChanges
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
        self.slotChanges = slotChanges
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
        state.withLock { state in
            state = .closed
            fd.close()
        }
        peer.close()
    }

    /// Since when the connection has been idle, or nil while a request is under way (or it ended).
    var idleSince: Double? {
        state.withLock { state in
            if case .idle(let since) = state { return since }
            return nil
        }
    }

    /// Whether the connection is about to give its slot up: its last request's answer being sent,
    /// idle within microseconds unless the client does not read it, or its descriptor closed and
    /// its thread ending. A client that reads its answer and closes at once (to connect again)
    /// finds its connection here, not yet idle: an admission waits for it briefly rather than
    /// refuse (`SlotChanges`).
    var isSettling: Bool {
        state.withLock { state in
            switch state {
            case .finishing, .closed: true
            case .idle, .busy, .evicted: false
            }
        }
    }

    /// Closes the connection if it is idle now; false when a request is under way (or it ended),
    /// including one whose first bytes wait unread in the socket.
    func evictIfIdle() -> Bool {
        state.withLock { state in
            guard case .idle = state else { return false }
            var byte: UInt8 = 0
            guard recv(fd.rawValue, &byte, 1, Int32(MSG_PEEK) | Int32(MSG_DONTWAIT)) <= 0 else { return false }
            state = .evicted
            _ = shutdown(fd.rawValue, Int32(SHUT_RDWR))
            return true
        }
    }

    /// Ends the connection after the request in progress, if any, has been answered.
    func stopReading() {
        state.withLock { state in
            if case .closed = state { return }
            _ = shutdown(fd.rawValue, Int32(SHUT_RD))
        }
    }

    /// Marks the connection busy as request bytes arrive; false if it was evicted meanwhile.
    private func beginRequest() -> Bool {
        state.withLock { state in
            if case .evicted = state { return false }
            state = .busy
            return true
        }
    }

    /// The last request buffered is answered next (its bytes are consumed after).
    private func finishing() {
        state.withLock { state in
            if case .busy = state { state = .finishing }
        }
    }

    /// Idle again, since the last request was answered (blank lines do not count). Every change
    /// to idle is one an admission may be looking for: from `finishing`, and from `busy` (a
    /// request of blank lines only), which an admission that saw the connection busy must hear of
    /// before it refuses (`SlotChanges.count`).
    private func becomeIdle(since: Double) {
        let becameIdle = state.withLock { state -> Bool in
            switch state {
            case .busy, .finishing:
                state = .idle(since: since)
                return true
            case .idle, .evicted, .closed:
                return false
            }
        }
        if becameIdle { slotChanges.changed() }
    }

    private func serve() {
        UnixSocket.setTimeouts(fd, seconds: 10)
        var lines = LineBuffer(limit: MessageCodec.maxRequestBytes)
        var scratch = [UInt8](repeating: 0, count: 64 * 1024)
        /// When the first byte of the request line now buffered arrived; nil while idle.
        var lineStarted: Double?
        /// Bytes in the line buffer still unread on the socket (see the read below).
        var peeked = 0
        /// When the connection opened or last had a request answered: the idle timeout counts from here.
        var lastAnswered = Clock.monotonicSeconds()
        /// Whether this thread counts among `busyPoll`'s active ones (from a wake-up to its next sleep).
        var active = false
        /// Whether to spin before the next sleep: the last request came soon after the answer before it.
        var spinNext = false
        var answeredAny = false
        /// Who sent what `lines` holds.
        var senders = MessageSenders()
        defer {
            if active { busyPoll.leave() }
            lines.clear()
            senders.clear()
            scratch.withUnsafeMutableBytes { SecretBytes.wipe($0) }
            // Before the socket closes: an approver's registration polls it.
            dispatcher.connectionClosed(peer)
            state.withLock { state in
                state = .closed
                fd.close()
            }
            peer.close()
        }
        while true {
            var answered = false
            drain: while true {
                switch lines.next() {
                case .line(var line):
                    defer { line.withUnsafeMutableBytes { SecretBytes.wipe($0) } }
                    // A blank line is no progress: it neither restarts the request deadline nor
                    // keeps the connection from counting as idle.
                    if line.allSatisfy({ $0 == 0x20 || $0 == 0x09 }) { continue drain }
                    answered = true
                    let sender: PeerProcess? = switch senders.sender(connector: peerPID) {
                    case .connector: peer
                    case .other(let process): process
                    case .unknown: nil
                    }
                    let response = dispatcher.handle(line: &line, connection: peer, sender: sender)
                    // Nothing more buffered: settling from here (`isSettling`), since the client
                    // may read the answer, close and connect again before this thread is idle
                    // (woken by the answer, it can even run first on this CPU).
                    if lines.isEmpty { finishing() }
                    guard send(response), consume(&peeked, scratch: &scratch) else { return }
                case .tooLong:
                    logger.warning("connection \(number) (pid \(peerPID)) sent a request over \(MessageCodec.maxRequestBytes) bytes; closing it")
                    _ = send(ResponseLine(id: nil, .failure(ErrorBody(
                        .tooLarge, "request line over \(MessageCodec.maxRequestBytes / 1024) KiB; the connection is closed"))))
                    return
                case .needMore:
                    guard consume(&peeked, scratch: &scratch) else { return }
                    break drain
                }
            }
            let now = Clock.monotonicSeconds()
            if answered {
                lastAnswered = now
                answeredAny = true
            }
            if lines.isEmpty {
                lineStarted = nil
                senders.clear()
                becomeIdle(since: lastAnswered)
            } else if answered || lineStarted == nil {
                // The rest of this read began a new line.
                lineStarted = now
            }
            let wait = lineStarted.map { $0 + requestTimeout - now } ?? (lastAnswered + idleTimeout - now)
            guard wait > 0 else {
                if lineStarted != nil { unfinishedRequest() }
                return
            }
            // Wait, then claim the connection before consuming anything: once bytes are read here,
            // an eviction (which only takes idle connections) can no longer drop them unanswered.
            let count: Int
            do {
                // Spinning finds the next request before this core sleeps (`BusyPoll`).
                var ready = false
                if answered, lineStarted == nil, spinNext, active {
                    ready = busyPoll.spin(on: fd)
                    spinNext = ready
                }
                if !ready {
                    if active { busyPoll.leave() }
                    active = false
                    guard try UnixSocket.waitReadable(fd, seconds: wait) else {
                        if lineStarted != nil {
                            unfinishedRequest()
                        } else {
                            logger.debug("connection \(number) closed after \(Int(idleTimeout)) s idle")
                        }
                        return
                    }
                    busyPoll.enter()
                    active = true
                    if answeredAny, lineStarted == nil, Clock.monotonicSeconds() - lastAnswered <= busyPoll.budget { spinNext = true }
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
                // them unread (`evictIfIdle`) and leaves the connection alone. At the end of input
                // it is never claimed: a client that closed leaves an idle connection, which an
                // admission may evict, not a busy one it must refuse for.
                if count > 0 { guard beginRequest() else { return } }
            } catch {
                return
            }
            if count == 0 { return }
            peeked = count
            scratch.withUnsafeBytes { lines.append(UnsafeRawBufferPointer(rebasing: $0[0..<count])) }
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
