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
import VaultSystem

/// vaultd as the Secret Service (API 0.2): owns `org.freedesktop.secrets` on the session bus
/// when nobody else does, and serves the vault's items as one collection (`login`, also the
/// `default` alias) to libsecret, secret-tool, Python secretstorage and keyring, and the rest.
///
/// One type per exported object (`ServiceObject`, `CollectionObject`, `ItemObject`,
/// `SessionObject`, `PromptObject`, `ProviderObject`), each calling the policy core
/// (`ItemService`); the callers are known to `CallerRegistry`. This type owns the bus connection,
/// admits calls, checks their caller and hands each to its object.
///
/// Threads: GDBus runs on a GMainContext of the provider's own, on a dedicated thread (never the
/// Swift cooperative pool); every call is handed at once to `queue` (concurrent: a call waiting
/// for the approver holds up no other), where the blocking store calls run and the answer is
/// sent, so a slow store never stalls the bus connection.
final class SecretServiceProvider: BusSignals, @unchecked Sendable {
    static let busName = "org.freedesktop.secrets"
    /// How long start-up waits for the bus (connecting and asking for the name).
    static let startTimeout = 10.0
    /// Calls being answered for one bus connection, and for all of them together: each holds a
    /// thread of `queue` (one waiting for the approver, for up to --approval-timeout), so a
    /// connection pipelining calls cannot take them all; calls over either bound are answered
    /// at once with LimitsExceeded.
    static let callsPerCaller = 8
    static let maxCalls = 32

    let logger: Logger
    let queue = DispatchQueue(label: "vaultd.secret-service", attributes: .concurrent)
    // Set once by `start` before any call can arrive; read-only afterwards.
    private(set) var server: OpaquePointer?
    /// Calls received and not yet answered, by caller and in all.
    private let inFlight = AdaptiveLock((byCaller: [String: Int](), total: 0))
    private let nextObject = AdaptiveLock<UInt64>(0)

    let callers: CallerRegistry
    let service: ServiceObject
    let collection: CollectionObject
    let item: ItemObject
    let sessions: SessionObject
    let prompts: PromptObject
    let provider: ProviderObject

    /// What `status` and `doctor` say about the provider.
    let status: SecretServiceProviderStatus
    private let signalSink: (any BusSignals)?

    /// `askBus`: how callers are asked about (the provider's own bus connection unless a test
    /// gives another); `promptTimeout`: seconds a started prompt waits for the vault to be
    /// unlocked; `vaultFile`: the file served, as vault.Provider tells another vaultd;
    /// `trustBusPIDs`: whether a caller may be bound by the bus's pid where the bus gives no
    /// ProcessFD (`SecretServiceCaller`); `signals`: where signals go instead of the bus (a
    /// test's recorder).
    init(items: ItemService, logger: Logger, promptTimeout: Double, vaultFile: String, trustBusPIDs: Bool = false,
         status: SecretServiceProviderStatus, askBus: CallerRegistry.AskBus? = nil, signals: (any BusSignals)? = nil) {
        self.status = status
        signalSink = signals
        self.logger = logger
        let counter = nextObject
        let newPath: @Sendable (String) -> String = { prefix in
            prefix + Self.instance + "_" + String(counter.withLock { next in
                next += 1
                return next
            })
        }
        // The objects are made before the provider is: they reach it (its bus connection, for
        // signals and for asking who calls) through the relay, set once below.
        let relay = Relay()
        callers = CallerRegistry(askBus: askBus ?? { relay.provider?.askBus($0) ?? .failure(.failed("the provider is not connected")) },
                                 status: status, trustBusPIDs: trustBusPIDs, logger: logger)
        sessions = SessionObject(callers: callers, newPath: newPath)
        prompts = PromptObject(store: items.store, callers: callers, signals: relay, queue: queue, timeout: promptTimeout, newPath: newPath)
        collection = CollectionObject(items: items, callers: callers, sessions: sessions)
        item = ItemObject(items: items, callers: callers, sessions: sessions)
        service = ServiceObject(items: items, callers: callers, sessions: sessions, prompts: prompts, collection: collection, logger: logger)
        provider = ProviderObject(vaultFile: vaultFile)
        relay.provider = self
        items.store.whenUnlocked { [weak self] in
            guard let self else { return }
            queue.async { self.prompts.completeStarted() }
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
        let request = call.request, sender = request.sender
        let refusal = inFlight.withLock { inFlight -> BusError? in
            let mine = inFlight.byCaller[sender, default: 0]
            guard mine < Self.callsPerCaller else {
                return .limitsExceeded("this connection has \(Self.callsPerCaller) calls to vaultd waiting for an answer already: wait for their answers before sending more")
            }
            guard inFlight.total < Self.maxCalls else {
                return .limitsExceeded("vaultd is answering \(Self.maxCalls) Secret Service calls already: try again shortly")
            }
            inFlight.byCaller[sender] = mine + 1
            inFlight.total += 1
            return nil
        }
        if let refusal {
            call.answer(.failure(refusal))
            return
        }
        queue.async { [self] in
            // One view of the vault file for the whole call, as for a socket request.
            let result = items.serving(request.operation) { answer(request) }
            // Released before the answer is sent: a caller that reads its answer and sends at
            // once must find the call gone (answering only queues the message on the bus thread).
            inFlight.withLock { inFlight in
                inFlight.total -= 1
                let left = inFlight.byCaller[sender, default: 1] - 1
                inFlight.byCaller[sender] = left > 0 ? left : nil
            }
            call.answer(result.map(\.value))
            if case .success(let reply) = result { reply.afterAnswer?() }
        }
    }

    private var items: ItemService { collection.items }

    /// On the bus thread: `name` came onto the bus now (announced before any call of it arrives);
    /// the bus is asked who it is at once.
    private func appeared(_ name: String) {
        callers.appeared(name)
        // Asked now rather than at its first call: a client's first call to vaultd (libsecret's
        // GetAll) comes after several of its own round trips to the bus, by which time the
        // answer is here, so no call waits for a question to the bus.
        guard let server, callers.asksAhead else { return }
        vault_dbus_sender_credentials_async(server, name, 5000) { context, sender, ok, uid, pid, hasPID, processFD in
            guard let context, let sender else {
                if processFD >= 0 { close(processFD) }
                return
            }
            let credentials = CallerRegistry.Credentials(uid: uid, pid: hasPID != 0 ? Int32(bitPattern: pid) : nil, processFD: processFD)
            Unmanaged<SecretServiceProvider>.fromOpaque(context).takeUnretainedValue().callers
                .askedAhead(String(cString: sender), ok != 0 ? .success(credentials) : .failure(.failed("the bus did not say who the caller is")))
        }
    }

    /// On the bus thread: `name` left the bus; its sessions, prompts and pidfd go with it.
    func vanished(_ name: String) {
        callers.vanished(name)
        sessions.dropAll(of: name)
        prompts.dropAll(of: name)
    }

    /// The caller is checked, then the request goes to its object.
    func answer(_ request: BusRequest) -> Result<BusReply, BusError> {
        do {
            try callers.check(request.sender)
            if request.interface == Self.propertiesInterface { return .success(BusReply(try properties(request))) }
            guard let object = object(implementing: request.interface) else {
                throw BusError.notSupported("vaultd has no interface \(request.interface) here")
            }
            return .success(try object.answer(request))
        } catch let error as BusError {
            return .failure(error)
        } catch {
            return .failure(BusError(error))
        }
    }

    static let propertiesInterface = "org.freedesktop.DBus.Properties"

    /// The object type that implements `interface`.
    private func object(implementing interface: String) -> (any BusObject)? {
        switch interface {
        case ServiceObject.interface: service
        case CollectionObject.interface: collection
        case ItemObject.interface: item
        case SessionObject.interface: sessions
        case PromptObject.interface: prompts
        case ProviderObject.interface: provider
        default: nil
        }
    }

    /// org.freedesktop.DBus.Properties on every object: GDBus has checked that the property
    /// exists on the object's interface, is readable or writable, and that a Set's value has its type.
    private func properties(_ request: BusRequest) throws -> BusValue? {
        let interface = request.argument(0).string ?? ""
        let object = object(implementing: interface)
        switch request.member {
        case "Get":
            let name = request.argument(1).string ?? ""
            guard let value = try object?.properties(at: request.path).first(where: { $0.0 == name })?.1 else {
                throw BusError.invalidArgs("no property \(name) on \(interface)")
            }
            return .tuple([.variant(value)])
        case "GetAll":
            let values = try object?.properties(at: request.path) ?? []
            return .tuple([.dictionary(valueType: "v", values.map { ($0.0, .variant($0.1)) })])
        case "Set":
            guard let value = request.argument(2).unboxed else { throw BusError.invalidArgs("Set takes a variant") }
            let name = request.argument(1).string ?? ""
            guard let object else { throw BusError.notSupported("\(interface) has no property \(name) to set") }
            try object.setProperty(name, to: value, at: request.path, for: request)
            return nil
        default:
            throw BusError.notSupported("no method \(request.member)")
        }
    }

    /// Asks the bus who `sender` is (blocking, at most 5 s).
    private func askBus(_ sender: String) -> Result<CallerRegistry.Credentials, BusError> {
        guard let server else { return .failure(.failed("the provider is not connected")) }
        var uid: UInt32 = 0, pid: UInt32 = 0
        var hasPID: gboolean = 0
        var processFD: Int32 = -1
        var error: UnsafeMutablePointer<GError>?
        guard vault_dbus_sender_credentials(server, sender, 5000, &uid, &pid, &hasPID, &processFD, &error) != 0 else {
            return .failure(.accessDenied("vaultd could not learn who is calling: \(Self.message(taking: error))"))
        }
        return .success(CallerRegistry.Credentials(uid: uid, pid: hasPID != 0 ? Int32(bitPattern: pid) : nil, processFD: processFD))
    }

    /// This process's part of session and prompt paths: a client still holding one from a vaultd
    /// that was restarted finds it unknown, never another's.
    private static let instance = ((try? SecureRandom.bytes(6)) ?? []).lowercaseHex

    /// The collection's signal for a change made through vault's socket. Only plain secrets are
    /// items over D-Bus; a deletion is announced whatever the kind was (it is gone either way).
    func announce(_ change: ItemChangeFeed.Change) {
        let member: String
        let key: ItemKey
        switch change {
        case .created(let changed, .secret): (member, key) = ("ItemCreated", changed)
        case .changed(let changed, .secret): (member, key) = ("ItemChanged", changed)
        case .deleted(let changed): (member, key) = ("ItemDeleted", changed)
        default: return
        }
        guard !key.isReserved else { return }
        emit(from: SecretServicePath.collection, interface: CollectionObject.interface, member, .tuple([.objectPath(SecretServicePath.item(key))]))
    }

    func emit(from path: String, interface: String, _ member: String, _ arguments: BusValue, to destination: String?) {
        if let signalSink { return signalSink.emit(from: path, interface: interface, member, arguments, to: destination) }
        guard let server else { return }
        vault_dbus_emit(server, destination, path, interface, member, arguments.make())
    }

    /// The provider, for objects made before it was (set once, before any call arrives).
    private final class Relay: BusSignals, @unchecked Sendable {
        weak var provider: SecretServiceProvider?
        func emit(from path: String, interface: String, _ member: String, _ arguments: BusValue, to destination: String?) {
            provider?.emit(from: path, interface: interface, member, arguments, to: destination)
        }
    }
}
