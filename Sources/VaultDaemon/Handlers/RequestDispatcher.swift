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

    public init(store: ActiveStore, catalog: StoreCatalog, socketPath: String, logger: Logger) {
        self.store = store
        self.catalog = catalog
        self.socketPath = socketPath
        self.logger = logger
        // One request to a provider must fit in a refresh's budget (HTTPClient waits its timeout and 1 s more).
        let httpTimeout = min(catalog.configuration.httpTimeout, SessionRefresher.defaultBudget - 2)
        refresher = SessionRefresher(
            transport: HTTPClient(timeout: httpTimeout), attemptTimeout: httpTimeout + 1, lock: StoreRefreshLock(store: store),
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
            log: { logger.info($0) })
        sessions = SessionManager(
            refresher: refresher,
            save: { key, record, label in
                try store.perform { try $0.set(key, secret: try record.encoded(), changes: ItemChanges(label: label, kind: .session)) }
            },
            delete: { key in try store.perform { try $0.delete(key) } })
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
        // Before and after: auto-lock counts from a client's last use of the items, and a long
        // request (a migration, a slow refresh) is not locked mid-way.
        let isUse = decoded.request.postponesAutoLock
        if isUse { store.recordUse() }
        defer { if isUse { store.recordUse() } }
        var response = respond(to: decoded.request)
        if case .failure(let body) = response, body.code == VaultErrorCode.locked.rawValue, decoded.request.touchesItems {
            // Name the real cause (the passphrase file's mode, say); try again when it was fixed.
            let (unlocked, explained) = store.explainLocked(.locked(body.message))
            response = unlocked ? respond(to: decoded.request) : .failure(ErrorBody(explained))
        }
        return ResponseLine(id: decoded.id, response)
    }

    private func respond(to request: Request) -> Response {
        do {
            return .success(try answer(request))
        } catch let error as VaultError {
            return .failure(ErrorBody(error))
        } catch {
            logger.error("unexpected error: \(error)")
            return .failure(ErrorBody(.internal, "internal error; see vaultd's log"))
        }
    }

    /// Answers a copy of `line`, wiped afterwards (for callers that keep their own line).
    public func handle(line: [UInt8]) -> ResponseLine {
        var copy = line
        defer { copy.withUnsafeMutableBytes { SecretBytes.wipe($0) } }
        return handle(line: &copy)
    }

    /// The dispatch switch: every operation, checked by the compiler.
    func answer(_ request: Request) throws -> ResultBody {
        switch request {
        case .status: ResultBody(status: status())
        case .get(let payload): try get(payload)
        case .add(let payload): try write(payload, replacing: false)
        case .set(let payload): try write(payload, replacing: true)
        case .delete(let payload): try delete(payload)
        case .list(let payload): try list(payload)
        case .lock: try lock()
        case .unlock(let payload): try unlock(payload)
        case .changePassphrase(let payload): try changePassphrase(payload)
        case .migrate(let payload): try migrate(payload)
        case .doctor: try doctor()
        case .token(let payload): try token(payload)
        case .login(let payload): try signIn(payload, signingUp: false)
        case .signup(let payload): try signIn(payload, signingUp: true)
        case .resetPassword(let payload): try resetPassword(payload)
        case .logout(let payload): try logout(payload)
        case .importSession(let payload): try importSession(payload)
        case .deviceStart(let payload): try deviceStart(payload)
        case .devicePoll(let payload): try devicePoll(payload)
        case .foreignList(let payload): try foreignList(payload)
        case .foreignGet(let payload): try foreignGet(payload)
        case .foreignSet(let payload): try foreignSet(payload)
        case .foreignDelete(let payload): try foreignDelete(payload)
        }
    }
}
