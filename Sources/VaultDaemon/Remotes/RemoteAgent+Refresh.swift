import VaultCore
import VaultRemotes

/// The background refresh: every `refreshInterval`, each remote's token is renewed when due and
/// each cached secret's current version is asked (`metadata`); a newer one is fetched and kept,
/// an unchanged one is confirmed in memory (nothing written), a deleted one is dropped. While
/// the store is locked nothing happens.
extension RemoteAgent {
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
            for path in paths {
                guard let copy = cachedCopy(name, path) else { continue }
                let reference = Self.reference(name, path)
                let now = clock()
                do {
                    let current = try withToken(name, doing: "refreshing \(reference)") { client, token throws(EngineError) -> KVSecret? in
                        let metadata = try client.metadata(path, token: token)
                        guard metadata.currentVersion != copy.secret.version else { return nil }
                        return try client.read(path, token: token)
                    }
                    if let current {
                        try keep(name, path, current, confirmed: now)
                        logger.debug("remote '\(name)': version \(current.version) of a cached secret fetched")
                    } else {
                        confirm(name, path, at: now)
                    }
                } catch let error as VaultError where error.code == .notFound {
                    drop(name, path)
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
}
