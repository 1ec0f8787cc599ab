import VaultCore
import VaultProtocol

/// The decisions of one connection's read loop, without its I/O (`Connection` does the reads,
/// waits and sends): the request lines buffered, when the request being received must be
/// whole (`requestTimeout` from its first byte, however slowly the rest trickles in), when an
/// idle connection has waited long enough (`idleTimeout` from its last answer), and whether to
/// spin before sleeping (`BusyPoll`). Times are monotonic seconds, given by the caller.
struct RequestReader: ~Copyable {
    /// What the buffer holds next.
    enum Next: Equatable {
        /// A whole request line (blank lines are skipped: they are no request).
        case request([UInt8])
        /// A line over `MessageCodec.maxRequestBytes`: the connection is closed.
        case tooLong
        /// Nothing whole: read more.
        case drained
    }

    /// What to do once the buffer is drained.
    enum Wait: Equatable {
        /// Wait up to `seconds` for more bytes, spinning first when `spin`.
        case wait(seconds: Double, spin: Bool)
        /// The time is up: a request line left unfinished (`midRequest`), or idle too long.
        case expired(midRequest: Bool)
    }

    private var lines = LineBuffer(limit: MessageCodec.maxRequestBytes)
    /// When the first byte of the request line now buffered arrived; nil while idle.
    private var lineStarted: Double?
    /// When the connection opened or last had a request answered.
    private var lastAnswered: Double
    private var answeredAny = false
    /// Whether a request was taken since the buffer was last drained.
    private var answeredThisRound = false
    /// Whether to spin before the next sleep: the last request came soon after the answer before it.
    private var spinNext = false
    let idleTimeout: Double
    let requestTimeout: Double
    /// How soon after an answer the next request must come for the connection to spin.
    let spinBudget: Double

    init(openedAt: Double, idleTimeout: Double, requestTimeout: Double, spinBudget: Double) {
        lastAnswered = openedAt
        self.idleTimeout = idleTimeout
        self.requestTimeout = requestTimeout
        self.spinBudget = spinBudget
    }

    /// Whether nothing is buffered: the last request taken is the last one to answer for now.
    var isEmpty: Bool { lines.isEmpty }

    /// Whether part of a request line has arrived and not yet the rest.
    var isMidRequest: Bool { lineStarted != nil }

    /// Bytes read from the socket.
    mutating func received(_ bytes: UnsafeRawBufferPointer) {
        lines.append(bytes)
    }

    /// The next request line, a line too long, or nothing whole. The caller wipes the line.
    mutating func next() -> Next {
        while true {
            switch lines.next() {
            case .line(var line):
                // A blank line is no progress: it neither restarts the request deadline nor
                // keeps the connection from counting as idle.
                if line.allSatisfy({ $0 == 0x20 || $0 == 0x09 }) {
                    line.withUnsafeMutableBytes { SecretBytes.wipe($0) }
                    continue
                }
                answeredThisRound = true
                return .request(line)
            case .tooLong:
                return .tooLong
            case .needMore:
                return .drained
            }
        }
    }

    /// The buffer was drained at `now`: `idleSince` is set when nothing of a request is left
    /// (the connection is idle since its last answer), and `wait` says how long to wait for more.
    mutating func drained(at now: Double) -> (idleSince: Double?, wait: Wait) {
        let answered = answeredThisRound
        answeredThisRound = false
        if answered {
            lastAnswered = now
            answeredAny = true
        }
        var idleSince: Double?
        if lines.isEmpty {
            lineStarted = nil
            idleSince = lastAnswered
        } else if answered || lineStarted == nil {
            // The rest of the last read began a new line.
            lineStarted = now
        }
        let remaining = lineStarted.map { $0 + requestTimeout - now } ?? (lastAnswered + idleTimeout - now)
        guard remaining > 0 else { return (idleSince, .expired(midRequest: lineStarted != nil)) }
        return (idleSince, .wait(seconds: remaining, spin: answered && lineStarted == nil && spinNext))
    }

    /// A spin ended; `ready`: a request arrived during it (so spin again after answering it).
    mutating func spun(ready: Bool) {
        spinNext = ready
    }

    /// The loop woke from a sleep at `now` with bytes to read: a request arriving within
    /// `spinBudget` of the last answer comes from a client sending back to back, so the
    /// connection spins after answering it.
    mutating func woke(at now: Double) {
        if answeredAny, lineStarted == nil, now - lastAnswered <= spinBudget { spinNext = true }
    }

    /// Wipes what is buffered.
    mutating func clear() {
        lines.clear()
    }
}
