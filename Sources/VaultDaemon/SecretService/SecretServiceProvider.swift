import CGDBusShims
import CVaultShims
import Dispatch
import Synchronization
#if canImport(Glibc)
import Glibc
#endif
import VaultCore
import VaultCrypto
import VaultProtocol

/// vaultd as the Secret Service (API 0.2): owns `org.freedesktop.secrets` on the session bus
/// when nobody else does, and serves the vault's items as one collection (`login`, also the
/// `default` alias) to libsecret, secret-tool, Python secretstorage and keyring, and the rest.
///
/// Threads: GDBus runs on a GMainContext of the provider's own, on a dedicated thread (never the
/// Swift cooperative pool); every call is handed at once to `queue` (concurrent: a call waiting
/// for the approver holds up no other), where the blocking store calls run and the answer is
/// sent, so a slow store never stalls the bus connection.
final class SecretServiceProvider: @unchecked Sendable {
    static let busName = "org.freedesktop.secrets"
    /// How long start-up waits for the bus (connecting and asking for the name).
    static let startTimeout = 10.0
    /// Sessions one bus connection may hold, and all of them together.
    static let sessionsPerCaller = 64
    static let maxSessions = 4096
    /// Calls being answered for one bus connection, and for all of them together: each holds a
    /// thread of `queue` (one waiting for the approver, for up to --approval-timeout), so a
    /// connection pipelining calls cannot take them all; calls over either bound are answered
    /// at once with LimitsExceeded.
    static let callsPerCaller = 8
    static let maxCalls = 32
    /// Object paths one Unlock, Lock or GetSecrets may name.
    static let maxObjectsPerCall = 10_000

    let store: ActiveStore
    /// Every item operation's whole sequence (access, store, audit, change, use), shared with
    /// the socket's dispatcher.
    let items: ItemService
    let logger: Logger
    let queue = DispatchQueue(label: "vaultd.secret-service", attributes: .concurrent)
    // Set once by `start` before any call can arrive; read-only afterwards.
    private(set) var server: OpaquePointer?
    let state = AdaptiveLock(State())

    struct State {
        var sessions: [String: SecretServiceSession] = [:]
        /// What the bus reported for each caller still on the bus (unique names are never reused).
        var callers: [String: SecretServiceCaller] = [:]
        /// When each unique name still on the bus came onto it (CLOCK_BOOTTIME clock ticks), as the
        /// bus announced it: a caller's process must have started by then (`SecretServiceCaller`).
        var appeared: [String: Int64] = [:]
        /// Callers whose credentials are being asked for: how many calls wait for them, and
        /// whether the name left the bus meanwhile (then what the bus said is not kept).
        var lookups: [String: (waiting: Int, vanished: Bool)] = [:]
        var prompts: [String: PendingPrompt] = [:]
        var nextObject: UInt64 = 0
        /// Calls received and not yet answered, by caller and in all.
        var callsInFlight: [String: Int] = [:]
        var totalCallsInFlight = 0
    }

    /// Seconds a started prompt waits for the vault to be unlocked before it is dismissed.
    let promptTimeout: Double
    /// The vault file served, as vault.Provider's VaultFile tells another vaultd (whose
    /// `migrate` must not take this provider for a store of its own when they share the file).
    let vaultFile: String

    /// What `status` and `doctor` say about the provider.
    let status: SecretServiceProviderStatus
    /// Whether a caller may be bound by the bus's pid where the bus gives no ProcessFD (`SecretServiceCaller`).
    let trustBusPIDs: Bool

    init(items: ItemService, logger: Logger, promptTimeout: Double, vaultFile: String, trustBusPIDs: Bool = false, status: SecretServiceProviderStatus) {
        self.items = items
        self.trustBusPIDs = trustBusPIDs
        self.status = status
        store = items.store
        self.vaultFile = vaultFile
        self.logger = logger
        self.promptTimeout = promptTimeout
                store.whenUnlocked { [weak self] in
            guard let self else { return }
            queue.async { self.completeStartedPrompts() }
        }
    }

    /// Why the provider did not start.
    enum StartFailure: Error, CustomStringConvertible {
        /// Another connection owns the name (another provider: GNOME Keyring, KeePassXC, a vaultd).
        case nameTaken
        /// The bus could not be reached or refused us.
        case bus(String)

        var description: String {
            switch self {
            case .nameTaken: "another program already owns \(SecretServiceProvider.busName) on the session bus (GNOME Keyring, KeePassXC, another vaultd)"
            case .bus(let problem): problem
            }
        }
    }

    /// Connects to the bus at `address`, exports the objects and asks for the name (never
    /// replacing its owner, never queueing for it). Returns once serving; throws when not. When
    /// the bus has not answered within `startTimeout`, start-up is given up for good: should the bus
    /// answer later, the thread closes the connection (releasing the name) instead of serving,
    /// so what `status` says stays true.
    func start(address: String) throws(StartFailure) {
        let outcome = AdaptiveLock<StartFailure??>(nil)
        let done = DispatchSemaphore(value: 0)
        // The bus thread keeps the provider alive for as long as vaultd runs.
        _ = Unmanaged.passRetained(self)
        let started = DetachedThread.start(stackSize: 1 << 20) { [self] in
            let context = Unmanaged.passUnretained(self).toOpaque()
            var error: UnsafeMutablePointer<GError>?
            // Whether start-up still waits for this thread: false once it gave up.
            func settle(_ failure: StartFailure?) -> Bool {
                outcome.withLock { outcome in
                    guard outcome == nil else { return false }
                    outcome = .some(failure)
                    return true
                }
            }
            guard let server = vault_dbus_server_new(address, SecretServiceInterfaces.xml, { context, invocation in
                guard let context, let invocation else { return }
                Unmanaged<SecretServiceProvider>.fromOpaque(context).takeUnretainedValue().received(BusCall(taking: invocation))
            }, { context, name in
                guard let context, let name else { return }
                Unmanaged<SecretServiceProvider>.fromOpaque(context).takeUnretainedValue().vanished(String(cString: name))
            }, { context, name in
                guard let context, let name else { return }
                Unmanaged<SecretServiceProvider>.fromOpaque(context).takeUnretainedValue().appeared(String(cString: name))
            }, context, &error) else {
                _ = settle(.bus("cannot connect to the session bus at \(address): \(Self.message(taking: error))"))
                done.signal()
                return
            }
            let reply = vault_dbus_server_request_name(server, Self.busName, &error)
            guard reply == 1 || reply == 4 else {
                let failure: StartFailure = reply == 0 ? .bus("the session bus did not give vaultd \(Self.busName): \(Self.message(taking: error))") : .nameTaken
                vault_dbus_server_free(server)
                _ = settle(failure)
                done.signal()
                return
            }
            // Serving from here, unless start-up gave up meanwhile: then the name goes back.
            self.server = server
            guard settle(nil) else {
                self.server = nil
                vault_dbus_server_free(server)
                return
            }
            done.signal()
            vault_dbus_server_run(server)
        }
        guard started else { throw .bus("could not start the Secret Service provider's thread") }
        let late = StartFailure.bus("the session bus at \(address) did not answer within \(Self.startTimeout.secondsText) s")
        if done.wait(timeout: .now() + Self.startTimeout) != .success {
            // Given up unless the thread settled it just now (then its outcome holds).
            outcome.withLock { outcome in
                if outcome == nil { outcome = .some(late) }
            }
        }
        if let failure = outcome.withLock({ $0 }) ?? nil { throw failure }
    }

    static func message(taking error: UnsafeMutablePointer<GError>?) -> String {
        guard let error else { return "unknown error" }
        defer { g_error_free(error) }
        return String(cString: error.pointee.message)
    }

    /// On the bus thread: hand the call to `queue` at once, or refuse it at once when its
    /// caller, or everyone together, has as many calls in flight as allowed.
    private func received(_ call: BusCall) {
        let sender = call.sender
        let refusal = state.withLock { state -> BusError? in
            let mine = state.callsInFlight[sender, default: 0]
            guard mine < Self.callsPerCaller else {
                return .limitsExceeded("this connection has \(Self.callsPerCaller) calls to vaultd waiting for an answer already: wait for their answers before sending more")
            }
            guard state.totalCallsInFlight < Self.maxCalls else {
                return .limitsExceeded("vaultd is answering \(Self.maxCalls) Secret Service calls already: try again shortly")
            }
            state.callsInFlight[sender] = mine + 1
            state.totalCallsInFlight += 1
            return nil
        }
        if let refusal {
            call.answer(.failure(refusal))
            return
        }
        queue.async { [self] in
            // One view of the vault file for the whole call, as for a socket request.
            let result = items.serving(call.operation) { answer(call) }
            // Released before the answer is sent: a caller that reads its answer and sends at
            // once must find the call gone (answering only queues the message on the bus thread).
            state.withLock { state in
                state.totalCallsInFlight -= 1
                let left = state.callsInFlight[sender, default: 1] - 1
                state.callsInFlight[sender] = left > 0 ? left : nil
            }
            call.answer(result)
            call.afterAnswer?()
        }
    }

    /// On the bus thread: `name` came onto the bus now (announced before any call of it arrives).
    private func appeared(_ name: String) {
        let now = vault_boot_ticks_now()
        guard now >= 0 else { return }
        state.withLock { $0.appeared[name] = now }
    }

    /// On the bus thread: `name` left the bus; its sessions, prompts and pidfd go with it.
    private func vanished(_ name: String) {
        state.withLock { state in
            state.callers[name] = nil
            state.appeared[name] = nil
            state.lookups[name]?.vanished = true
            state.sessions = state.sessions.filter { $0.value.owner != name }
            state.prompts = state.prompts.filter { $0.value.owner != name }
        }
    }

    /// On `queue`: the caller is checked, then the call goes to its object's handler.
    func answer(_ call: BusCall) -> Result<BusValue?, BusError> {
        do {
            try checkCaller(call.sender)
            if call.interface == "org.freedesktop.DBus.Properties" { return .success(try properties(call)) }
            switch call.interface {
            case "org.freedesktop.Secret.Service": return .success(try serviceMethod(call))
            case "org.freedesktop.Secret.Collection": return .success(try collectionMethod(call))
            case "org.freedesktop.Secret.Item": return .success(try itemMethod(call))
            case "org.freedesktop.Secret.Session": return .success(try sessionMethod(call))
            case "org.freedesktop.Secret.Prompt": return .success(try promptMethod(call))
            default: throw BusError.notSupported("vaultd has no interface \(call.interface) here")
            }
        } catch let error as BusError {
            return .failure(error)
        } catch {
            return .failure(BusError(error))
        }
    }

    /// Only the user vaultd runs as is served (the bus may admit others: a system-wide or TCP bus).
    /// A caller's first call asks the bus who it is (and takes its pidfd, `SecretServiceCaller`).
    private func checkCaller(_ sender: String) throws(BusError) {
        if let caller = state.withLock({ $0.callers[sender] }) {
            guard caller.uid == getuid() else { throw BusError.accessDenied("vaultd serves only uid \(getuid())") }
            return
        }
        guard let server else { throw BusError.failed("the provider is not connected") }
        // Registered before asking: a `vanished` from now on is seen below; one before it
        // makes the bus answer that the name has no owner.
        state.withLock { $0.lookups[sender, default: (0, false)].waiting += 1 }
        var uid: UInt32 = 0, pid: UInt32 = 0
        var hasPID: gboolean = 0
        var processFD: Int32 = -1
        var error: UnsafeMutablePointer<GError>?
        let answered = vault_dbus_sender_credentials(server, sender, 5000, &uid, &pid, &hasPID, &processFD, &error) != 0
        // The pidfd is taken at once, while the pid the bus reported is the caller's.
        let appearedAt = state.withLock { $0.appeared[sender] }
        if answered, hasPID != 0 { status.noteCallers(processFD: processFD >= 0, trustingPIDs: trustBusPIDs) }
        let asked = answered ? SecretServiceCaller(uid: uid, pid: hasPID != 0 ? Int32(bitPattern: pid) : nil, processFD: processFD,
                                                   appeared: trustBusPIDs ? appearedAt : nil) : nil
        let caller = state.withLock { state -> SecretServiceCaller? in
            let lookup = state.lookups[sender] ?? (1, false)
            state.lookups[sender] = lookup.waiting > 1 ? (lookup.waiting - 1, lookup.vanished) : nil
            // Kept only while the name is on the bus: `vanished` would never remove it.
            guard let asked, !lookup.vanished else { return nil }
            if let known = state.callers[sender] { return known }
            state.callers[sender] = asked
            return asked
        }
        guard answered else { throw BusError.accessDenied("vaultd could not learn who is calling: \(Self.message(taking: error))") }
        guard let caller else { throw BusError.failed("the caller left the bus") }
        guard caller.uid == getuid() else {
            logger.notice("refused a Secret Service call from uid \(caller.uid)\(hasPID != 0 ? " pid \(pid)" : ""): only uid \(getuid()) is served")
            throw BusError.accessDenied("vaultd serves only uid \(getuid())")
        }
    }

    /// Who `sender` is, as far as /proc tells while the pidfd taken at its first call shows the
    /// process still runs (nothing once it has exited, or without a pid).
    func identity(of sender: String) -> CallerIdentity {
        state.withLock({ $0.callers[sender] })?.identify() ?? .unknown
    }

    /// This process's part of session and prompt paths: a client still holding one from a vaultd
    /// that was restarted finds it unknown, never another's.
    private static let instance = SecretServicePath.hex((try? SecureRandom.bytes(6)) ?? [])

    /// A new object path under `prefix`, never used before by any vaultd.
    func newPath(_ prefix: String) -> String {
        prefix + Self.instance + "_" + String(state.withLock { state in
            state.nextObject += 1
            return state.nextObject
        })
    }

    /// The collection's signal for a change made through vault's socket. Only plain secrets are
    /// items over D-Bus; a deletion is announced whatever the kind was (it is gone either way).
    func announce(_ change: ItemChangeFeed.Change) {
        switch change {
        case .created(let key, .secret) where !key.isReserved: emitCollectionSignal("ItemCreated", item: SecretServicePath.item(key))
        case .changed(let key, .secret) where !key.isReserved: emitCollectionSignal("ItemChanged", item: SecretServicePath.item(key))
        case .deleted(let key) where !key.isReserved: emitCollectionSignal("ItemDeleted", item: SecretServicePath.item(key))
        default: break
        }
    }

    /// Emits `member(o path)` from the collection (ItemCreated, ItemChanged, ItemDeleted).
    func emitCollectionSignal(_ member: String, item: String) {
        emit(from: SecretServicePath.collection, interface: "org.freedesktop.Secret.Collection", member, .tuple([.objectPath(item)]))
    }

    /// Emits the signal `member` of `interface` from `path` to `destination`, or to everyone.
    func emit(from path: String, interface: String, _ member: String, _ arguments: BusValue, to destination: String? = nil) {
        guard let server else { return }
        vault_dbus_emit(server, destination, path, interface, member, arguments.make())
    }
}
