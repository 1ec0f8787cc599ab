import VaultCore
import VaultRemotes

/// The background refresh: every `refreshInterval`, each remote's token is renewed when due and
/// each cached secret's current version is asked (`metadata`); a newer one is fetched and kept,
/// an unchanged one is confirmed in memory (nothing written), a deleted or destroyed one is
/// dropped. The token
/// is taken once per batch of `refreshBatch` secrets, not per secret, so a refresh costs the
/// engine's requests and little besides. While the store is locked nothing happens.
extension RemoteAgent {
    /// Secrets asked about under one token: a failure (the engine gone mid-refresh) loses at
    /// most one batch's confirmations, and a token refused mid-way repeats at most one batch.
    static let refreshBatch = 200

    /// What the engine said of one cached copy.
    enum Refreshed {
        case unchanged
        case newer(KVSecret)
        case gone
    }

    func refreshAll() {
        guard let records = try? records() else { return }
        for record in records {
            guard let name = try? record.settings.remoteName else { continue }
            refresh(name)
        }
    }

    func refresh(_ name: RemoteName) {
        let paths = cachedPaths(name)
        do {
            if paths.isEmpty {
                // Nothing cached: keep the token alive and the remote's state known.
                _ = try withToken(name, doing: "refreshing") { client, token throws(EngineError) in try client.lookup(token) }
            }
            var start = 0
            while start < paths.count {
                let batch = paths[start..<min(start + Self.refreshBatch, paths.count)]
                start = batch.endIndex
                let copies = batch.compactMap { path in cachedCopy(name, path).map { (path, $0.secret.version) } }
                let now = clock()
                let answers = try withToken(name, doing: "refreshing the cached secrets") { client, token throws(EngineError) in
                    try copies.map { path, version throws(EngineError) in (path, try Self.refreshed(path, version, client, token)) }
                }
                for (path, answer) in answers {
                    switch answer {
                    case .unchanged: confirm(name, path, at: now)
                    case .newer(let current):
                        try keep(name, path, current, confirmed: now)
                        logger.debug("remote '\(name)': version \(current.version) of a cached secret fetched")
                    case .gone: drop(name, path)
                    }
                }
            }
            states.withLock { $0[name.text, default: RemoteState()].lastRefresh = clock() }
        } catch let error as VaultError where error.code == .locked {
            return
        } catch {
            // Noted in the remote's state (status shows it); logged once when it first fails.
            logger.debug("remote '\(name)': refresh stopped: \(error)")
        }
    }

    /// Asks the engine whether the copy of `path` at `version` is still the current version.
    static func refreshed(_ path: KVPath, _ version: Int, _ client: EngineClient, _ token: EngineToken) throws(EngineError) -> Refreshed {
        do throws(EngineError) {
            let metadata = try client.metadata(path, token: token)
            // A soft delete or destroy leaves `current_version` as it was: the version says so.
            if let current = metadata.versions.first(where: { $0.version == metadata.currentVersion }), !current.deleted.isEmpty || current.destroyed {
                return .gone
            }
            guard metadata.currentVersion != version else { return .unchanged }
            return .newer(try client.read(path, token: token))
        } catch .notFound {
            return .gone
        }
    }
}
