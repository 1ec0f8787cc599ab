import CVaultShims
#if canImport(Glibc)
import Glibc
#endif
import VaultCore
import VaultSystem

/// The bus connections that call the provider: who each is (asked of the bus as it comes onto
/// the bus, or at its first call, `SecretServiceCaller`), when each came onto the bus, and which
/// are still on it. Only the user vaultd runs as is served (the bus may admit others: a
/// system-wide or TCP bus).
final class CallerRegistry: Sendable {
    /// What the bus says of one connection (`GetConnectionCredentials`), or why it said nothing.
    struct Credentials {
        var uid: UInt32
        /// nil when the bus gave no pid.
        var pid: Int32?
        /// The bus's ProcessFD, owned by the receiver; -1 when the bus gave none.
        var processFD: Int32 = -1
    }

    /// Asks the bus about a unique name (blocking): its credentials, or the bus's error message.
    typealias AskBus = @Sendable (String) -> Result<Credentials, BusError>

    private struct State {
        /// What the bus reported for each caller still on the bus (unique names are never reused).
        var callers: [String: SecretServiceCaller] = [:]
        /// When each unique name still on the bus came onto it (CLOCK_BOOTTIME clock ticks), as the
        /// bus announced it: a caller's process must have started by then (`SecretServiceCaller`).
        var appeared: [String: Int64] = [:]
        /// Callers whose credentials are being asked for: how many calls wait for them, and
        /// whether the name left the bus meanwhile (then what the bus said is not kept).
        var lookups: [String: (waiting: Int, vanished: Bool)] = [:]
    }

    private let state = AdaptiveLock(State())
    private let askBus: AskBus
    private let status: SecretServiceProviderStatus
    /// Whether a caller may be bound by the bus's pid where the bus gives no ProcessFD.
    private let trustBusPIDs: Bool
    private let logger: Logger

    init(askBus: @escaping AskBus, status: SecretServiceProviderStatus, trustBusPIDs: Bool, logger: Logger) {
        self.askBus = askBus
        self.status = status
        self.trustBusPIDs = trustBusPIDs
        self.logger = logger
    }

    /// `name` came onto the bus now (announced before any call of it arrives).
    func appeared(_ name: String) {
        let now = vault_boot_ticks_now()
        guard now >= 0 else { return }
        state.withLock { $0.appeared[name] = now }
    }

    /// `name` left the bus: what was known of it goes (its pidfd once no call uses it).
    func vanished(_ name: String) {
        state.withLock { state in
            state.callers[name] = nil
            state.appeared[name] = nil
            state.lookups[name]?.vanished = true
        }
    }

    /// Whether `name` called and is still on the bus. Objects a caller owns (sessions, prompts)
    /// are added first and this asked after: a caller gone in between is seen here, one gone
    /// later has its objects dropped by the provider's `vanished`.
    func isOnBus(_ name: String) -> Bool {
        state.withLock { $0.callers[name] != nil }
    }

    /// Lets `sender` on only when it runs as vaultd's user. Its first call asks the bus who it is.
    func check(_ sender: String) throws(BusError) {
        if let caller = state.withLock({ $0.callers[sender] }) {
            guard caller.uid == getuid() else { throw BusError.accessDenied("vaultd serves only uid \(getuid())") }
            return
        }
        // Registered before asking: a `vanished` from now on is seen below; one before it
        // makes the bus answer that the name has no owner.
        state.withLock { $0.lookups[sender, default: (0, false)].waiting += 1 }
        let answer = askBus(sender)
        let asked = try? answer.map { described(sender, $0) }.get()
        let caller = state.withLock { state -> SecretServiceCaller? in
            let lookup = state.lookups[sender] ?? (1, false)
            state.lookups[sender] = lookup.waiting > 1 ? (lookup.waiting - 1, lookup.vanished) : nil
            // Kept only while the name is on the bus: `vanished` would never remove it.
            guard let asked, !lookup.vanished else { return nil }
            if let known = state.callers[sender] { return known }
            state.callers[sender] = asked
            return asked
        }
        if case .failure(let error) = answer { throw error }
        guard let caller else { throw BusError.failed("the caller left the bus") }
        guard caller.uid == getuid() else {
            logger.notice("refused a Secret Service call from uid \(caller.uid)\(caller.process.map { " pid \($0.pid)" } ?? ""): only uid \(getuid()) is served")
            throw BusError.accessDenied("vaultd serves only uid \(getuid())")
        }
    }

    /// The caller the bus described; its pidfd is taken at once, while the pid the bus
    /// reported is the caller's.
    private func described(_ sender: String, _ credentials: Credentials) -> SecretServiceCaller {
        let appearedAt = state.withLock { $0.appeared[sender] }
        if credentials.pid != nil { status.noteCallers(processFD: credentials.processFD >= 0, trustingPIDs: trustBusPIDs) }
        return SecretServiceCaller(uid: credentials.uid, pid: credentials.pid, processFD: credentials.processFD,
                                   appeared: trustBusPIDs ? appearedAt : nil)
    }

    /// At most this many connections are known at once by asking as they come onto the bus
    /// (each holds a pidfd until it leaves); past it, a connection is asked about at its first call.
    static let maximumAskedAhead = 256

    /// Whether a connection that just came onto the bus should be asked about now.
    var asksAhead: Bool { state.withLock { $0.callers.count < Self.maximumAskedAhead } }

    /// What the bus said of `name` when asked as it came onto the bus: kept while the name is on
    /// the bus and no call asked about it meanwhile, so that its first call waits for no question
    /// to the bus. A failure is dropped: the first call asks again.
    func askedAhead(_ name: String, _ answer: Result<Credentials, BusError>) {
        guard case .success(let credentials) = answer else { return }
        guard state.withLock({ $0.appeared[name] != nil }) else {
            if credentials.processFD >= 0 { FileDescriptor(rawValue: credentials.processFD).close() }
            return
        }
        let asked = described(name, credentials)
        state.withLock { state in
            guard state.appeared[name] != nil, state.callers[name] == nil, state.lookups[name] == nil else { return }
            state.callers[name] = asked
        }
    }

    /// `request` as the policy core takes it: its caller and its read view.
    func asking(_ request: BusRequest) -> ItemRequest {
        ItemRequest(identity(of: request.sender), reads: request.reads)
    }

    /// Who `sender` is, as far as /proc tells while the pidfd taken at its first call shows the
    /// process still runs (nothing once it has exited, or without a pid).
    func identity(of sender: String) -> CallerIdentity {
        state.withLock({ $0.callers[sender] })?.identify() ?? .unknown
    }
}
