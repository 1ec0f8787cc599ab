#if canImport(Glibc)
import Glibc
#endif
import VaultCore
import VaultProtocol
import VaultRemotes

/// Adding, logging in to, removing and describing remotes.
extension RemoteAgent {
    /// Checks `settings`, logs in with `credential` (so a wrong URL, CA or credential is found
    /// now, not at the first read) and keeps the remote.
    func add(_ settings: RemoteSettings, credential: String?) throws -> RemoteRecord {
        let settings = try settings.validated()
        let name = try settings.remoteName
        if (try? record(name)) != nil {
            throw VaultError.invalidInput("remote '\(name)' exists already: 'vaultctl remote login \(name)' gives it a new credential, 'vaultctl remote remove \(name)' forgets it")
        }
        if settings.auth.needsSecret, credential?.isEmpty ?? true {
            throw VaultError.invalidInput("--auth \(settings.auth.method.rawValue) needs a \(Self.credentialName(settings.auth.method)) on stdin or at the prompt")
        }
        if let caFile = settings.caFile, access(caFile, R_OK) != 0 {
            throw VaultError.invalidInput("--ca-file \(caFile) is not a readable file")
        }
        var record = RemoteRecord(settings: settings, credential: settings.auth.needsSecret ? credential : nil)
        do throws(EngineError) {
            record.token = try client(settings).login(credential: record.credential)
        } catch {
            throw loginFailure(error, record)
        }
        noteContact(name)
        try save(record)
        logger.info("remote '\(name)' added: \(settings.url), mount '\(settings.mount)', \(settings.auth.method.rawValue)")
        return record
    }

    /// Logs in again, with a new `credential` when given.
    func login(_ name: RemoteName, credential: String?) throws -> RemoteRecord {
        var record = try record(name)
        if let credential, !credential.isEmpty {
            guard record.settings.auth.needsSecret else { throw VaultError.invalidInput("remote '\(name)' logs in with a JWT file; it takes no secret") }
            record.credential = credential
        }
        do throws(EngineError) {
            record.token = try client(record.settings).login(credential: record.credential)
        } catch {
            throw loginFailure(error, record)
        }
        noteContact(name)
        try save(record)
        logger.info("remote '\(name)': logged in (\(record.settings.auth.method.rawValue))")
        return record
    }

    /// Forgets the remote and its cached secrets; the token vaultd obtained by logging in is
    /// revoked (a token the user gave is theirs, and is left alone).
    func remove(_ name: RemoteName) throws -> Int {
        let record = try record(name)
        if record.settings.auth.logsInAgain, let token = record.token {
            do throws(EngineError) { try client(record.settings).revoke(token) } catch {
                logger.info("remote '\(name)': its token could not be revoked (\(error.explained(remote: name.text, url: record.settings.url, doing: "revoking the token"))); it expires by itself")
            }
        }
        let paths = cachedPaths(name)
        try store.perform { store in
            for path in paths { try? store.delete(.cached(name, path)) }
            try store.delete(.remote(name))
        }
        let prefix = name.text + "/"
        confirmations.withLock { $0 = $0.filter { !$0.key.hasPrefix(prefix) } }
        decodedCopies.withLock { $0 = $0.filter { !$0.key.hasPrefix(prefix) } }
        states.withLock { $0[name.text] = nil }
        logger.info("remote '\(name)' removed with \(paths.count) cached secrets")
        return paths.count
    }

    /// How `record` stands, for listings, `status` and `doctor`.
    func body(_ record: RemoteRecord) -> RemoteBody {
        let settings = record.settings
        let now = clock()
        var cached = 0, stale = 0
        var oldest: Double?
        if let name = try? settings.remoteName {
            for path in cachedPaths(name) {
                guard let copy = cachedCopy(name, path) else { continue }
                cached += 1
                let age = copy.age(at: now)
                if age > freshFor { stale += 1 }
                oldest = max(oldest ?? 0, age)
            }
        }
        let state = state(settings.name)
        var body = RemoteBody(name: settings.name, url: settings.url, mount: settings.mount, prefix: settings.prefix, maxAge: settings.maxAge,
                              auth: settings.auth.summary, loggedIn: record.token.map { !$0.isExpired(at: now) } ?? false, cached: cached, stale: stale)
        body.reachable = state.reachable
        body.problem = state.problem
        body.tokenTTL = record.token?.remaining(at: now)
        body.lastContact = state.lastContact.map(Timestamp.rfc3339(seconds:))
        body.lastRefresh = state.lastRefresh.map(Timestamp.rfc3339(seconds:))
        body.oldest = oldest
        return body
    }

    /// Every remote's body, asking each engine first when `probe` (`doctor`).
    func bodies(probe: Bool) throws -> [RemoteBody] {
        try records().sorted { $0.settings.name < $1.settings.name }.map { record in
            if probe, let name = try? record.settings.remoteName {
                _ = try? withToken(name, doing: "checking the token") { client, token throws(EngineError) in try client.lookup(token) }
            }
            return body(record)
        }
    }

    static func credentialName(_ method: RemoteAuth.Method) -> String {
        switch method {
        case .token: "token"
        case .approle: "secret id"
        case .userpass: "password"
        case .jwt: "JWT"
        }
    }
}
