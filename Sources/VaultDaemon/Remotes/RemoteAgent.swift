import VaultCore
import VaultRemotes
import VaultSystem
import VaultTokens

/// vaultd as the agent in front of remote engines (OpenBao, HashiCorp Vault): it keeps each
/// remote's record (`RemoteRecord`: settings, credential, the engine's token) and a cached copy
/// of every secret read, both as vault's own items in the encrypted store; it logs in, renews
/// and logs in again by itself; it serves reads from the cache while the engine cannot be
/// reached and the copy is younger than the remote's `maxAge`. The policy (access rules,
/// approval, audit) is the caller's, `ItemService`: this type only fetches and keeps.
///
/// Every method blocks on the network or the store: call from vaultd's connection and refresh
/// threads, never the cooperative pool.
final class RemoteAgent: Sendable {
    let store: ActiveStore
    let logger: Logger
    /// Seconds between background refreshes; a cached copy confirmed within twice this is
    /// served without asking the engine.
    let refreshInterval: Double
    let httpTimeout: Double
    /// The engine's HTTP client; nil: libcurl (`HTTPClient`) with each remote's CA file.
    let transport: (any HTTPTransport)?
    let clock: @Sendable () -> Double
    let states = AdaptiveLock<[String: RemoteState]>([:])
    /// One lock per remote around its token: one login or renewal at a time.
    private let tokenLocks = AdaptiveLock<[String: AdaptiveLock<Void>]>([:])
    /// When the engine last confirmed a cached copy (`REMOTE/PATH`) without it changing: kept
    /// in memory, so a refresh that finds nothing new writes nothing to the store.
    let confirmations = AdaptiveLock<[String: Double]>([:])
    /// Each cached copy (`REMOTE/PATH`) decoded, with the stored bytes it was decoded from: reused
    /// while the store holds those very bytes, so a read decodes only what changed; emptied
    /// before the store locks, as the store's own secrets are.
    let decodedCopies = AdaptiveLock<[String: (stored: SecretBytes, copy: CachedSecret)]>([:])

    init(store: ActiveStore, logger: Logger, refreshInterval: Double, httpTimeout: Double,
         transport: (any HTTPTransport)? = nil, clock: @escaping @Sendable () -> Double = { Double(Clock.nowMilliseconds()) / 1000 }) {
        self.store = store
        self.logger = logger
        self.refreshInterval = refreshInterval
        self.httpTimeout = httpTimeout
        self.transport = transport
        self.clock = clock
        store.beforeLocking { [decodedCopies] _ in decodedCopies.withLock { $0.removeAll() } }
    }

    /// A copy confirmed this recently is served without asking the engine.
    var freshFor: Double { refreshInterval * 2 }

    func client(_ settings: RemoteSettings) -> EngineClient {
        EngineClient(settings: settings, http: transport, timeout: httpTimeout, clock: clock)
    }

    // MARK: Records

    func record(_ name: RemoteName) throws -> RemoteRecord {
        do {
            return try store.read { try RemoteRecord.decoding($0.get(.remote(name)).secret, name: name.text) }
        } catch VaultError.notFound {
            throw VaultError.absent("no remote named '\(name)': add it with 'vaultctl remote add \(name) --url URL --auth METHOD'")
        }
    }

    func save(_ record: RemoteRecord) throws {
        let name = try record.settings.remoteName
        _ = try store.perform { try $0.set(.remote(name), secret: try record.encoded(), changes: ItemChanges(label: "remote \(name)", kind: .access)) }
    }

    /// Every remote's record, by name; those that cannot be read are logged and left out.
    func records() throws -> [RemoteRecord] {
        try store.read { store in
            try store.list(service: ItemKey.remotesService).compactMap { info -> RemoteRecord? in
                do {
                    return try RemoteRecord.decoding(store.get(info.key).secret, name: info.key.account)
                } catch {
                    logger.warning("\(error)")
                    return nil
                }
            }
        }
    }

    // MARK: Tokens

    /// Runs `body` with a client and a live token for `name`: logs in when there is no token or
    /// it expired, renews it when two thirds of its lease are gone, logs in again when renewal
    /// is refused. When `body` is refused (403) with a token vaultd can replace, it logs in
    /// again and runs `body` once more.
    func withToken<R>(_ name: RemoteName, doing what: String, _ body: (EngineClient, EngineToken) throws(EngineError) -> R) throws -> R {
        let (record, token) = try liveToken(name, doing: what)
        let client = client(record.settings)
        do {
            let result = try body(client, token)
            noteContact(name)
            return result
        } catch .forbidden(let why) where record.settings.auth.logsInAgain {
            logger.info("remote '\(name)' refused its token (\(why)); logging in again")
            let (_, fresh) = try liveToken(name, doing: what, replacing: token)
            do {
                let result = try body(client, fresh)
                noteContact(name)
                return result
            } catch {
                throw failure(error, record, doing: what)
            }
        } catch {
            throw failure(error, record, doing: what)
        }
    }

    /// The remote's record and a token to use now (never `replacing`).
    private func liveToken(_ name: RemoteName, doing what: String, replacing stale: EngineToken? = nil) throws -> (RemoteRecord, EngineToken) {
        let lock = tokenLocks.withLock { locks in
            if let lock = locks[name.text] { return lock }
            let lock = AdaptiveLock<Void>(())
            locks[name.text] = lock
            return lock
        }
        return try lock.withLock { _ in
            var record = try self.record(name)
            let now = clock()
            let auth = record.settings.auth
            let client = client(record.settings)
            if let token = record.token, token != stale, !token.isExpired(at: now) {
                guard token.wantsRenewal(at: now, floor: min(freshFor, max(token.lease / 3, 1))) else { return (record, token) }
                if token.renewable {
                    switch Result(catching: { () throws(EngineError) in try client.renew(token) }) {
                    case .success(let renewed):
                        record.token = renewed
                        noteContact(name)
                        try save(record)
                        logger.debug("remote '\(name)': token renewed")
                        return (record, renewed)
                    case .failure(let error) where error.isOffline:
                        noteProblem(name, error, record)
                        return (record, token)
                    case .failure:
                        if !auth.logsInAgain {
                            logger.warning("remote '\(name)': the engine refused to renew vaultd's token; it works until it expires, then 'vaultctl remote login \(name)'")
                            return (record, token)
                        }
                    }
                } else if !auth.logsInAgain {
                    return (record, token)
                }
            } else if !auth.logsInAgain, record.token != nil {
                throw VaultError.signInRequired("remote '\(name)': vaultd's token expired or was revoked; give a new one with 'vaultctl remote login \(name)'")
            }
            do throws(EngineError) {
                record.token = try client.login(credential: record.credential)
            } catch {
                throw loginFailure(error, record)
            }
            noteContact(name)
            try save(record)
            logger.info("remote '\(name)': logged in (\(auth.method.rawValue))")
            return (record, record.token!)
        }
    }

    /// A login's failure: a refused credential needs `remote login`.
    func loginFailure(_ error: EngineError, _ record: RemoteRecord) -> VaultError {
        let name = record.settings.name
        let why: String
        switch error {
        case .forbidden(let reason): why = "HTTP 403" + (reason.isEmpty ? "" : ": \(reason)")
        case .rejected(let status, let reason): why = "HTTP \(status)" + (reason.isEmpty ? "" : ": \(reason)")
        default: return failure(error, record, doing: "logging in")
        }
        noteContact(name)
        return .signInRequired("remote '\(name)' refused vaultd's login (\(record.settings.auth.summary); \(why)): give a new credential with 'vaultctl remote login \(name)'")
    }

    /// `error` in the user's words, noted in the remote's state.
    func failure(_ error: EngineError, _ record: RemoteRecord, doing what: String) -> VaultError {
        if error.isOffline || {
            if case .malformed = error { return true }
            return false
        }() {
            noteProblem(record.settings.name, error, record, doing: what)
        } else {
            noteContact(record.settings.name)
        }
        return error.explained(remote: record.settings.name, url: record.settings.url, doing: what)
    }

    func noteContact(_ name: some CustomStringConvertible) {
        let now = clock()
        states.withLock { states in
            states[name.description, default: RemoteState()].reachable = true
            states[name.description]?.problem = nil
            states[name.description]?.lastContact = now
        }
    }

    func noteProblem(_ name: some CustomStringConvertible, _ error: EngineError, _ record: RemoteRecord, doing what: String = "renewing the token") {
        let text = error.explained(remote: record.settings.name, url: record.settings.url, doing: what).reason
        let now = clock()
        let wasReachable = states.withLock { states -> Bool? in
            let was = states[name.description]?.reachable
            states[name.description, default: RemoteState()].reachable = false
            states[name.description]?.problem = text
            states[name.description]?.lastFailure = now
            return was
        }
        if wasReachable != false { logger.warning(text) }
    }

    func state(_ name: String) -> RemoteState { states.withLock { $0[name] ?? RemoteState() } }
}
