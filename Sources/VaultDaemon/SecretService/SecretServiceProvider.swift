import CGDBusShims
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

    let store: ActiveStore
    let logger: Logger
    let queue = DispatchQueue(label: "vaultd.secret-service", attributes: .concurrent)
    // Set once by `start` before any call can arrive; read-only afterwards.
    private(set) var server: OpaquePointer?
    let state = Mutex(State())

    struct State {
        var sessions: [String: SecretServiceSession] = [:]
        /// The uid and pid the bus reported for each caller (unique names are never reused).
        var callers: [String: (uid: UInt32, pid: Int32?)] = [:]
        var prompts: [String: PendingPrompt] = [:]
        var nextObject: UInt64 = 0
    }

    /// Seconds a started prompt waits for the vault to be unlocked before it is dismissed.
    let promptTimeout: Double
    /// vaultd's access rules and audit log, applied to D-Bus callers as to socket clients.
    let access: AccessControl?

    init(store: ActiveStore, logger: Logger, promptTimeout: Double, access: AccessControl?) {
        self.store = store
        self.logger = logger
        self.promptTimeout = promptTimeout
        self.access = access
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
    /// replacing its owner, never queueing for it). Returns once serving; throws when not.
    func start(address: String) throws(StartFailure) {
        let outcome = Mutex<StartFailure??>(nil)
        let done = DispatchSemaphore(value: 0)
        // The bus thread keeps the provider alive for as long as vaultd runs.
        _ = Unmanaged.passRetained(self)
        let started = DetachedThread.start(stackSize: 1 << 20) { [self] in
            let context = Unmanaged.passUnretained(self).toOpaque()
            var error: UnsafeMutablePointer<GError>?
            guard let server = vault_dbus_server_new(address, SecretServiceInterfaces.xml, { context, invocation in
                guard let context, let invocation else { return }
                Unmanaged<SecretServiceProvider>.fromOpaque(context).takeUnretainedValue().received(BusCall(taking: invocation))
            }, { context, name in
                guard let context, let name else { return }
                Unmanaged<SecretServiceProvider>.fromOpaque(context).takeUnretainedValue().vanished(String(cString: name))
            }, context, &error) else {
                outcome.withLock { $0 = .some(.bus("cannot connect to the session bus at \(address): \(Self.message(taking: error))")) }
                done.signal()
                return
            }
            let reply = vault_dbus_server_request_name(server, Self.busName, &error)
            guard reply == 1 || reply == 4 else {
                let failure: StartFailure = reply == 0 ? .bus("the session bus did not give vaultd \(Self.busName): \(Self.message(taking: error))") : .nameTaken
                vault_dbus_server_free(server)
                outcome.withLock { $0 = .some(failure) }
                done.signal()
                return
            }
            self.server = server
            outcome.withLock { $0 = .some(nil) }
            done.signal()
            vault_dbus_server_run(server)
        }
        guard started else { throw .bus("could not start the Secret Service provider's thread") }
        guard done.wait(timeout: .now() + Self.startTimeout) == .success else {
            throw .bus("the session bus at \(address) did not answer within \(Int(Self.startTimeout)) s")
        }
        if let failure = outcome.withLock({ $0 }) ?? nil { throw failure }
    }

    static func message(taking error: UnsafeMutablePointer<GError>?) -> String {
        guard let error else { return "unknown error" }
        defer { g_error_free(error) }
        return String(cString: error.pointee.message)
    }

    /// On the bus thread: hand the call to `queue` at once.
    private func received(_ call: BusCall) {
        queue.async { [self] in
            call.answer(answer(call))
            call.afterAnswer?()
        }
    }

    /// On the bus thread: `name` left the bus; its sessions go with it.
    private func vanished(_ name: String) {
        state.withLock { state in
            state.callers[name] = nil
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
    private func checkCaller(_ sender: String) throws(BusError) {
        if let uid = state.withLock({ $0.callers[sender]?.uid }) {
            guard uid == getuid() else { throw BusError.accessDenied("vaultd serves only uid \(getuid())") }
            return
        }
        guard let server else { throw BusError.failed("the provider is not connected") }
        var uid: UInt32 = 0, pid: UInt32 = 0
        var hasPID: gboolean = 0
        var error: UnsafeMutablePointer<GError>?
        guard vault_dbus_sender_credentials(server, sender, 5000, &uid, &pid, &hasPID, &error) != 0 else {
            throw BusError.accessDenied("vaultd could not learn who is calling: \(Self.message(taking: error))")
        }
        state.withLock { $0.callers[sender] = (uid, hasPID != 0 ? Int32(bitPattern: pid) : nil) }
        guard uid == getuid() else {
            logger.notice("refused a Secret Service call from uid \(uid)\(hasPID != 0 ? " pid \(pid)" : ""): only uid \(getuid()) is served")
            throw BusError.accessDenied("vaultd serves only uid \(getuid())")
        }
    }

    /// Who `sender` is, as far as /proc tells for the pid the bus reported (nothing without one).
    func identity(of sender: String) -> CallerIdentity {
        guard let pid = state.withLock({ $0.callers[sender]?.pid }) else { return .unknown }
        // No socket of the caller's: PeerProcess takes a pidfd from the pid (pidfd_open), and
        // identifies the process only while that pidfd shows it still runs.
        let process = PeerProcess(socket: FileDescriptor(rawValue: -1), pid: pid)
        defer { process.close() }
        return process.identify()
    }

    /// Throws `denied` unless `sender` may read `key` under vaultd's access rules (asking the
    /// approver when a rule says so), and records the read in the audit log either way.
    func checkRead(_ key: ItemKey, sender: String) throws {
        guard let access else { return }
        let context = RequestContext(peer: nil)
        context.caller = identity(of: sender)
        do {
            try access.checkRead(key, op: .get, context)
        } catch let error as VaultError {
            audit(.get, key, result: error.code.rawValue, context)
            throw error
        }
        audit(.get, key, result: "ok", context)
    }

    /// Records a read or change of `key` by `sender` in the audit log.
    func audit(_ op: Operation, _ key: ItemKey, sender: String) {
        guard access != nil else { return }
        let context = RequestContext(peer: nil)
        context.caller = identity(of: sender)
        audit(op, key, result: "ok", context)
    }

    private func audit(_ op: Operation, _ key: ItemKey, result: String, _ context: RequestContext) {
        access?.record(op: op.rawValue, item: key, result: result, caller: context.caller, grant: context.grant)
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
