import VaultCore
import VaultCrypto

/// org.freedesktop.Secret.Service at /org/freedesktop/secrets, and the sessions' Close.
extension SecretServiceProvider {
    func serviceMethod(_ call: BusCall) throws -> BusValue? {
        guard call.path == SecretServicePath.service else { throw BusError.noSuchObject(call.path) }
        switch call.member {
        case "OpenSession":
            return try openSession(algorithm: call.argument(0).string ?? "", input: call.argument(1).unboxed, owner: call.sender)
        case "CreateCollection":
            let alias = call.argument(1).string ?? ""
            guard alias.isEmpty || SecretServicePath.aliases.contains(alias) else {
                throw BusError.notSupported("vaultd keeps one collection, \(SecretServicePath.collection) (the aliases default and login); it cannot create another")
            }
            return .tuple([.objectPath(SecretServicePath.collection), .objectPath(SecretServicePath.none)])
        case "SearchItems":
            let found = try search(call.argument(0))
            return .tuple([.objectPaths(found), .objectPaths([])])
        case "Unlock":
            return try unlock(try call.argument(0).strings(atMost: Self.maxObjectsPerCall) ?? [], caller: call.sender)
        case "Lock":
            let objects = try call.argument(0).strings(atMost: Self.maxObjectsPerCall) ?? []
            try store.lock()
            store.setLockReason("locked by a Secret Service client (Lock): run 'vaultctl unlock'")
            logger.info("locked by a Secret Service client")
            return .tuple([.objectPaths(objects.filter(exportsLockable)), .objectPath(SecretServicePath.none)])
        case "GetSecrets":
            let session = try session(call.argument(1).string ?? "", of: call.sender)
            // All or none: when one item is refused, the call fails and none was read.
            var paths: [ItemKey: String] = [:]
            for path in try call.argument(0).strings(atMost: Self.maxObjectsPerCall) ?? [] {
                if let key = SecretServicePath.key(ofItem: path), !key.isReserved, paths[key] == nil { paths[key] = path }
            }
            let keys = paths.keys.sorted()
            let read = try items.readAll(keys, by: identity(of: call.sender), in: .plainSecrets)
            let secrets = try read.map { (paths[$0.info.key]!, try session.encode($0.secret, contentType: $0.info.contentType)) }
            return .tuple([.objectDictionary(valueType: "(oayays)", secrets)])
        case "ReadAlias":
            let alias = call.argument(0).string ?? ""
            return .tuple([.objectPath(SecretServicePath.aliases.contains(alias) ? SecretServicePath.collection : SecretServicePath.none)])
        case "SetAlias":
            let alias = call.argument(0).string ?? "", target = call.argument(1).string ?? ""
            guard SecretServicePath.aliases.contains(alias), SecretServicePath.isCollection(target) else {
                throw BusError.notSupported("vaultd's aliases default and login always name its one collection, \(SecretServicePath.collection)")
            }
            return nil
        default:
            throw BusError.notSupported("no method \(call.member)")
        }
    }

    private func openSession(algorithm: String, input: BusVariant?, owner: String) throws(BusError) -> BusValue {
        let key: SecretBytes?
        let output: BusValue
        switch algorithm {
        case SecretServiceSession.plain:
            guard input?.string != nil else { throw BusError.invalidArgs("the plain algorithm's input is a string (empty)") }
            (key, output) = (nil, .string(""))
        case SecretServiceSession.dh:
            guard let input else { throw BusError.invalidArgs("\(SecretServiceSession.dh) takes the client's public key as bytes (ay)") }
            // A 1024-bit group's key is 128 bytes; anything much longer is refused uncopied.
            let peer = try input.secretBytes(atMost: 256, "the DH public key")
            do {
                let agreed = try SecretServiceKeyExchange.agree(peer: peer.unprotectedBytes)
                (key, output) = (agreed.key, .bytes(SecretBytes(agreed.publicKey)))
            } catch {
                throw BusError.invalidArgs("the DH public key is unusable: \(error)")
            }
        default:
            throw BusError.notSupported("vaultd offers the algorithms \(SecretServiceSession.plain) and \(SecretServiceSession.dh), not '\(String(algorithm.prefix(64)).replacingControlCharacters())'")
        }
        let path = newPath(SecretServicePath.sessionPrefix)
        let opened = state.withLock { state -> Bool? in
            // Only for a caller still on the bus: `vanished` removes a caller and its sessions in
            // one go, so a session opened after it would never be closed.
            guard state.callers[owner] != nil else { return nil }
            guard state.sessions.count < Self.maxSessions, state.sessions.values.count(where: { $0.owner == owner }) < Self.sessionsPerCaller else { return false }
            state.sessions[path] = SecretServiceSession(path: path, owner: owner, key: key)
            return true
        }
        guard let opened else { throw BusError.failed("the caller left the bus") }
        guard opened else { throw BusError.limitsExceeded("too many open sessions (at most \(Self.sessionsPerCaller) per connection): close some") }
        return .tuple([.variant(output), .objectPath(path)])
    }

    /// The session at `path` if `sender` opened it. Other connections' sessions are
    /// indistinguishable from none.
    func session(_ path: String, of sender: String) throws(BusError) -> SecretServiceSession {
        guard let session = state.withLock({ $0.sessions[path] }), session.owner == sender else {
            throw BusError.noSession("that session is not open on this connection: call OpenSession first")
        }
        return session
    }

    func sessionMethod(_ call: BusCall) throws -> BusValue? {
        guard call.member == "Close" else { throw BusError.notSupported("no method \(call.member)") }
        _ = try session(call.path, of: call.sender)
        state.withLock { _ = $0.sessions.removeValue(forKey: call.path) }
        return nil
    }

    /// Whether `path` is an object Lock and Unlock act on: the collection (under any of its
    /// paths) or a well-formed item path.
    func exportsLockable(_ path: String) -> Bool {
        SecretServicePath.isCollection(path) || SecretServicePath.key(ofItem: path) != nil
    }
}
