import VaultCore
import VaultRemotes

/// Remote secrets: reads through the cache, writes with check-and-set, soft deletes, history
/// and listings. What the caller may do is decided before these run (`ItemService`).
extension RemoteAgent {
    /// A secret as served: the version, and how the copy stands.
    struct Served {
        var secret: KVSecret
        /// Seconds since the engine last confirmed it.
        var age: Double
        /// Served from the cache because the engine could not be reached.
        var offline: Bool
    }

    static func reference(_ name: RemoteName, _ path: KVPath) -> String { "\(ItemKey.remoteScheme)\(name)/\(path)" }

    /// The latest version of `path` (or version `version`, always asked of the engine): from
    /// the cache when the engine confirmed it within `freshFor` (unless `refresh`), else from
    /// the engine, else, while the engine cannot be reached, from the cache if the copy is
    /// younger than the remote's `maxAge`.
    func read(_ name: RemoteName, _ path: KVPath, version: Int?, refresh: Bool) throws -> Served {
        let reference = Self.reference(name, path)
        if let version {
            let secret = try withToken(name, doing: "reading \(reference) version \(version)") { client, token throws(EngineError) in
                try client.read(path, version: version, token: token)
            }
            return Served(secret: secret, age: 0, offline: false)
        }
        let cached = cachedCopy(name, path)
        let now = clock()
        if let cached, !refresh, cached.age(at: now) <= freshFor {
            return Served(secret: cached.secret, age: cached.age(at: now), offline: false)
        }
        if let cached, state(name.text).skipsEngine(at: now, retryAfter: refreshInterval) {
            return try offline(cached, name, reference, because: state(name.text).problem ?? "it did not answer", at: now)
        }
        do {
            let secret = try withToken(name, doing: "reading \(reference)") { client, token throws(EngineError) in
                try client.read(path, token: token)
            }
            try keep(name, path, secret, confirmed: now)
            return Served(secret: secret, age: 0, offline: false)
        } catch let error as VaultError where error.code == .unavailable {
            guard let cached else { throw error }
            return try offline(cached, name, reference, because: error.reason, at: clock())
        } catch let error as VaultError where error.code == .notFound {
            if cached != nil { drop(name, path) }
            throw error
        }
    }

    /// The cached copy while the engine cannot be reached, if younger than `maxAge`.
    private func offline(_ cached: CachedSecret, _ name: RemoteName, _ reference: String, because why: String, at now: Double) throws -> Served {
        let maxAge = try record(name).settings.maxAge
        let age = cached.age(at: now)
        guard age <= maxAge else {
            throw VaultError.unavailable("\(why); the cached copy of \(reference) was last confirmed \(DurationText.spoken(age)) ago, older than the remote's --max-age of \(DurationText.spoken(maxAge)), so it is not served: reach the engine again, or remove and add the remote with a longer --max-age")
        }
        logger.debug("remote '\(name)': served a cached copy \(Int(age)) s old while the engine cannot be reached")
        return Served(secret: cached.secret, age: age, offline: true)
    }

    /// Sets `field` of `path` to `value`, keeping the other fields: check-and-set on the
    /// version this vaultd last saw (the cached copy, else the engine's latest now); `force`
    /// writes over whatever is there. Returns the version written.
    func write(_ name: RemoteName, _ path: KVPath, field: String, value: String, force: Bool) throws -> KVSecret {
        try KVFields.check(field, value)
        return try write(name, path, force: force) { base in
            var fields = base
            fields[field] = value
            return fields
        }
    }

    /// Makes `fields` all of the fields of `path` (as `bao kv put`), by the same check-and-set.
    func write(_ name: RemoteName, _ path: KVPath, fields: [String: String], force: Bool) throws -> KVSecret {
        for (field, value) in fields { try KVFields.check(field, value) }
        return try write(name, path, force: force) { _ in fields }
    }

    /// Writes the fields `change` makes of the base version's.
    private func write(_ name: RemoteName, _ path: KVPath, force: Bool, change: ([String: String]) -> [String: String]) throws -> KVSecret {
        let reference = Self.reference(name, path)
        let cached = force ? nil : cachedCopy(name, path)
        var seen: Int?
        let written: KVSecret
        do {
            written = try withToken(name, doing: "writing \(reference)") { client, token throws(EngineError) -> KVSecret in
                var base: KVSecret?
                if let cached {
                    base = cached.secret
                } else {
                    do throws(EngineError) { base = try client.read(path, token: token) } catch .notFound { base = nil }
                }
                seen = base?.version
                let fields = change(base?.fields ?? [:])
                let cas = force ? nil : (base?.version ?? 0)
                let version = try client.write(path, fields: fields, cas: cas, token: token)
                return KVSecret(fields: fields, version: version, created: Timestamp.rfc3339(milliseconds: Clock.nowMilliseconds()))
            }
        } catch let error as VaultError where error.code == .conflict {
            unconfirm(name, path)
            let current = try? withToken(name, doing: "reading the history of \(reference)") { client, token throws(EngineError) in
                try client.metadata(path, token: token).currentVersion
            }
            let base = seen.map { "version \($0), the one this machine last saw" } ?? "no version (it did not exist)"
            throw VaultError.conflict("\(reference) changed on remote '\(name)': this write was based on \(base), but the engine has \(current.map { "version \($0)" } ?? "a newer version"), written meanwhile by someone else. Nothing was written. Read it ('vaultctl read \(reference)') to see the current value, then write again, or overwrite with --force")
        }
        try keep(name, path, written, confirmed: clock())
        logger.info("remote '\(name)': wrote version \(written.version)", naming: reference)
        return written
    }

    /// KV v2's soft delete of the latest version; the cached copy is dropped.
    func delete(_ name: RemoteName, _ path: KVPath) throws {
        let reference = Self.reference(name, path)
        try withToken(name, doing: "deleting \(reference)") { client, token throws(EngineError) in try client.delete(path, token: token) }
        drop(name, path)
        logger.info("remote '\(name)': deleted the latest version", naming: reference)
    }

    func history(_ name: RemoteName, _ path: KVPath) throws -> KVMetadata {
        try withToken(name, doing: "reading the history of \(Self.reference(name, path))") { client, token throws(EngineError) in
            try client.metadata(path, token: token)
        }
    }

    func list(_ name: RemoteName, _ folder: KVPath) throws -> [String] {
        try withToken(name, doing: "listing \(Self.reference(name, folder))") { client, token throws(EngineError) in
            try client.list(folder, token: token)
        }
    }

    // MARK: The cache

    func cachedCopy(_ name: RemoteName, _ path: KVPath) -> CachedSecret? {
        guard let item = try? store.read({ try $0.get(.cached(name, path)) }) else { return nil }
        let account = item.info.key.account
        var copy: CachedSecret
        if let decoded = decodedCopies.withLock({ $0[account] }), decoded.stored == item.secret {
            copy = decoded.copy
        } else {
            guard let decoded = CachedSecret.decoding(item.secret) else { return nil }
            decodedCopies.withLock { $0[account] = (item.secret, decoded) }
            copy = decoded
        }
        if let confirmed = confirmations.withLock({ $0[account] }) { copy.confirmed = max(copy.confirmed, confirmed) }
        return copy
    }

    /// Notes that the engine confirmed the cached copy of `path` is current, at `now`.
    func confirm(_ name: RemoteName, _ path: KVPath, at now: Double) {
        confirmations.withLock { $0[ItemKey.cached(name, path).account] = now }
    }

    func keep(_ name: RemoteName, _ path: KVPath, _ secret: KVSecret, confirmed: Double) throws {
        let copy = CachedSecret(secret: secret, confirmed: confirmed)
        confirmations.withLock { $0[ItemKey.cached(name, path).account] = confirmed }
        _ = try store.perform { try $0.set(.cached(name, path), secret: try copy.encoded(), changes: ItemChanges(label: Self.reference(name, path), kind: .access)) }
    }

    /// Makes the copy no longer fresh, so the next read asks the engine (its age for offline
    /// reads moves by no more than `freshFor`).
    func unconfirm(_ name: RemoteName, _ path: KVPath) {
        guard var copy = cachedCopy(name, path) else { return }
        copy.confirmed = min(copy.confirmed, clock() - freshFor - 1)
        confirmations.withLock { $0[ItemKey.cached(name, path).account] = copy.confirmed }
        _ = try? store.perform { try $0.set(.cached(name, path), secret: try copy.encoded(), changes: ItemChanges(kind: .access)) }
    }

    func drop(_ name: RemoteName, _ path: KVPath) {
        confirmations.withLock { $0[ItemKey.cached(name, path).account] = nil }
        decodedCopies.withLock { $0[ItemKey.cached(name, path).account] = nil }
        _ = try? store.perform { try $0.delete(.cached(name, path)) }
    }

    /// The cached paths of `name`.
    func cachedPaths(_ name: RemoteName) -> [KVPath] {
        let prefix = name.text + "/"
        let infos = (try? store.read { try $0.list(service: ItemKey.remoteCacheService) }) ?? []
        return infos.compactMap { info in
            guard info.key.account.hasPrefix(prefix) else { return nil }
            return try? KVPath(String(info.key.account.dropFirst(prefix.count)))
        }
    }
}
