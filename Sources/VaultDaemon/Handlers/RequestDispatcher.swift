#if canImport(Glibc)
import Glibc
#endif
import VaultCore
import VaultProtocol
import VaultStores
import VaultTokens

/// The one place requests are decoded and answered: a line is decoded into a typed `Request`
/// (each operation's payload reads only its own fields), one exhaustive switch hands it to its
/// handler (the `RequestDispatcher+…` files), and every failure becomes an error response with a
/// stable code. Nothing a client sends can crash the daemon.
public final class RequestDispatcher: Sendable {
    let store: ActiveStore
    let catalog: StoreCatalog
    let socketPath: String
    let logger: Logger
    let refresher: SessionRefresher
    let sessions: SessionManager
    let access: AccessControl
    /// Every item operation's whole sequence (access, store, audit, change, use), shared with
    /// the Secret Service provider.
    let items: ItemService
    /// The remote engines: their records, tokens and cached secrets.
    let remotes: RemoteAgent
    let spaces: SpaceAgent
    /// Whether vaultd serves the Secret Service D-Bus API, for `status` and `doctor`.
    public let secretServiceProvider = SecretServiceProviderStatus()
    /// The items socket requests create, change and delete, for the Secret Service's signals.
    public let itemChanges = ItemChangeFeed()

    public init(store: ActiveStore, catalog: StoreCatalog, socketPath: String, logger: Logger) {
        self.store = store
        self.catalog = catalog
        self.socketPath = socketPath
        self.logger = logger
        access = AccessControl(
            store: store, vaultFile: catalog.configuration.vaultFilePath,
            approvalTimeout: catalog.configuration.approvalTimeout, confirmAll: catalog.configuration.confirmAll, logger: logger)
        items = ItemService(store: store, access: access, changes: itemChanges, logger: logger)
        // A read whose cached copy is stale waits this long for the engine before the cache stands in.
        remotes = RemoteAgent(store: store, logger: logger, refreshInterval: catalog.configuration.remoteRefresh,
                              httpTimeout: min(catalog.configuration.httpTimeout, 5))
        spaces = SpaceAgent(store: store, remotes: remotes, changes: itemChanges, logger: logger) { [access, confirmAll = catalog.configuration.confirmAll] key in
            confirmAll || ((try? access.rules(of: key)).flatMap { $0 }.map { !$0.isEmpty } ?? false)
        }
        // One request to a provider must fit in a refresh's budget (HTTPClient waits its timeout and 1 s more).
        let httpTimeout = min(catalog.configuration.httpTimeout, SessionRefresher.defaultBudget - 2)
        refresher = SessionRefresher(
            transport: HTTPClient(timeout: httpTimeout), attemptTimeout: httpTimeout + 1, lock: SpaceRefreshLock(local: StoreRefreshLock(store: store), spaces: spaces),
            load: { key in try store.read { try Self.session(key, in: $0) } },
            update: { key, change in
                // Alone on the store: no other writer of this vaultd comes between the read and the write.
                try store.perform { active in
                    let current = try Self.session(key, in: active)
                    guard let changed = try change(current) else { return current }
                    _ = try active.set(key, secret: try changed.encoded(), changes: ItemChanges(kind: .session))
                    return changed
                }
            },
            log: { message, session in logger.info(message, naming: session.description) })
        sessions = SessionManager(
            refresher: refresher,
            save: { key, record, label in
                try store.perform { try $0.set(key, secret: try record.encoded(), changes: ItemChanges(label: label, kind: .session)) }
            },
            delete: { key in try store.perform { try $0.delete(key) } })
        // A change a client made reaches the other devices within about a second, not a round later.
        itemChanges.listen { [spaces] _ in spaces.nudge() }
    }

    /// The session stored under `key`; an error for a plain secret.
    static func session(_ key: ItemKey, in store: any VaultStore) throws -> SessionRecord {
        let item = try store.get(key)
        guard item.info.kind == .session else {
            throw VaultError.invalidInput("\(key) is a plain secret, not a sign-in session; use 'vaultctl get'")
        }
        return try SessionRecord.decoding(item.secret, key: key)
    }

    /// Answers one request line. Its secret fields are read into `SecretBytes` and blanked in
    /// `line` before anything else parses it (`MessageCodec.decode`); the caller wipes the rest.
    public func handle(line: inout [UInt8]) -> ResponseLine {
        handle(line: &line, connection: nil, sender: nil)
    }

    /// Answers one request line sent by the process `sender` (nil: nobody vaultd could name) on
    /// the connection of the process `connection` (nil: from no socket).
    func handle(line: inout [UInt8], connection peer: PeerProcess?, sender: PeerProcess?) -> ResponseLine {
        let decoded: RequestLine
        do {
            decoded = try MessageCodec.decode(RequestLine.self, from: &line)
        } catch let error as VaultError {
            // Decode the id alone, leniently, so even a request with bad fields gets its id back
            // (from the blanked line: no secret goes into this second decoding).
            let id = (try? MessageCodec.decode(RequestEnvelope.self, from: line))?.id
            return ResponseLine(id: id, .failure(ErrorBody(.badRequest, error.description)))
        } catch {
            return ResponseLine(id: nil, .failure(ErrorBody(.badRequest, "malformed request")))
        }
        let operation = decoded.request.operation
        // Who asks, established once, for the operations whose outcome names the caller.
        let caller = operation.traits.identifiesCaller ? sender?.identify() ?? .unknown : .unknown
        // The approver's requests count only from the process that connected.
        let connection = sender === peer ? peer : nil
        return items.serving(operation) {
            var response = respond(to: decoded.request, caller, connection)
            if case .failure(let body) = response, body.code == VaultErrorCode.locked.rawValue, operation.traits.touchesItems {
                // Name the real cause (the passphrase file's mode, say); try again when it was fixed.
                let (unlocked, explained) = store.explainLocked(.locked(body.message))
                response = unlocked ? respond(to: decoded.request, caller, connection) : .failure(ErrorBody(explained))
            }
            return ResponseLine(id: decoded.id, response)
        }
    }

    private func respond(to request: Request, _ caller: CallerIdentity, _ peer: PeerProcess?) -> Response {
        do {
            return .success(try answer(request, caller, peer))
        } catch let error as VaultError {
            return .failure(ErrorBody(error))
        } catch {
            logger.error("unexpected error: \(error)")
            return .failure(ErrorBody(.internal, "internal error; see vaultd's log"))
        }
    }

    /// The connection of `peer` closed: if it was an approver, it is one no longer.
    func connectionClosed(_ peer: PeerProcess) {
        access.broker.remove(approver: ObjectIdentifier(peer))
    }

    /// Answers a copy of `line`, wiped afterwards (for callers that keep their own line).
    public func handle(line: [UInt8]) -> ResponseLine {
        var copy = line
        defer { copy.withUnsafeMutableBytes { SecretBytes.wipe($0) } }
        return handle(line: &copy)
    }

    /// The dispatch switch: every operation, checked by the compiler.
    func answer(_ request: Request, _ caller: CallerIdentity, _ peer: PeerProcess?) throws -> ResultBody {
        // The request's one view of the store: the vault file is looked at once, at its first read.
        let asking = ItemRequest(caller)
        return switch request {
        case .status: ResultBody(status: status())
        case .get(let payload): try get(payload, asking)
        case .add(let payload): try write(payload, replacing: false, asking)
        case .set(let payload): try write(payload, replacing: true, asking)
        case .delete(let payload): try delete(payload, asking)
        case .list(let payload): try list(payload)
        case .lock: try lock()
        case .unlock(let payload): try unlock(payload)
        case .changePassphrase(let payload): try changePassphrase(payload)
        case .migrate(let payload): try migrate(payload)
        case .doctor: try doctor()
        case .token(let payload): try token(payload, asking)
        case .login(let payload): try signIn(payload, signingUp: false)
        case .signup(let payload): try signIn(payload, signingUp: true)
        case .resetPassword(let payload): try resetPassword(payload)
        case .logout(let payload): try logout(payload)
        case .importSession(let payload): try importSession(payload)
        case .deviceStart(let payload): try deviceStart(payload)
        case .devicePoll(let payload): try devicePoll(payload)
        case .foreignList(let payload): try foreignList(payload)
        case .foreignGet(let payload): try foreignGet(payload, asking)
        case .foreignSet(let payload): try foreignSet(payload, asking)
        case .foreignDelete(let payload): try foreignDelete(payload, asking)
        case .allow(let payload): try allow(payload, asking)
        case .disallow(let payload): try disallow(payload, asking)
        case .rules(let payload): try rules(payload)
        case .audit(let payload): try audit(payload)
        case .approveNext(let payload): try approveNext(payload, caller, peer)
        case .approveAnswer(let payload): try approveAnswer(payload, peer)
        case .setApprovalSecret(let payload): try setApprovalSecret(payload, caller)
        case .resolveCredential(let payload): try resolveCredential(payload, asking)
        case .remoteAdd(let payload): try remoteAdd(payload)
        case .remoteList: try remoteList()
        case .remoteRemove(let payload): try remoteRemove(payload)
        case .remoteLogin(let payload): try remoteLogin(payload)
        case .kvGet(let payload): try kvGet(payload, asking)
        case .kvPut(let payload): try kvPut(payload, asking)
        case .kvDelete(let payload): try kvDelete(payload, asking)
        case .kvHistory(let payload): try kvHistory(payload)
        case .kvList(let payload): try kvList(payload)
        case .spaceCreate(let payload), .spaceJoin(let payload), .spaceAdmit(let payload), .spaceAdd(let payload), .spaceRemove(let payload),
             .spaceStatus(let payload), .spaceRemoveDevice(let payload), .spaceSync(let payload), .spaceResolve(let payload):
            try space(request.operation, payload)
        }
    }
}
