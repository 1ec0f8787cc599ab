import VaultCore

/// The service (org.freedesktop.Secret.Service at /org/freedesktop/secrets): sessions, search,
/// lock and unlock, secrets in bulk, and the aliases of its one collection.
struct ServiceObject: BusObject {
    enum Method: String, CaseIterable {
        case openSession = "OpenSession"
        case createCollection = "CreateCollection"
        case searchItems = "SearchItems"
        case unlock = "Unlock"
        case lock = "Lock"
        case getSecrets = "GetSecrets"
        case readAlias = "ReadAlias"
        case setAlias = "SetAlias"
    }

    static let interface = "org.freedesktop.Secret.Service"
    /// Object paths one Unlock, Lock or GetSecrets may name.
    static let maxObjectsPerCall = 10_000

    let items: ItemService
    let callers: CallerRegistry
    let sessions: SessionObject
    let prompts: PromptObject
    let collection: CollectionObject
    let logger: Logger

    func call(_ method: Method, _ request: BusRequest) throws -> BusReply {
        guard request.path == SecretServicePath.service else { throw BusError.noSuchObject(request.path) }
        return BusReply(try answer(method, request))
    }

    private func answer(_ method: Method, _ request: BusRequest) throws -> BusValue? {
        switch method {
        case .openSession:
            return try sessions.open(algorithm: request.argument(0).string ?? "", input: request.argument(1).unboxed, owner: request.sender)
        case .createCollection:
            let alias = request.argument(1).string ?? ""
            guard alias.isEmpty || SecretServicePath.aliases.contains(alias) else {
                throw BusError.notSupported("vaultd keeps one collection, \(SecretServicePath.collection) (the aliases default and login); it cannot create another")
            }
            return .tuple([.objectPath(SecretServicePath.collection), .objectPath(SecretServicePath.none)])
        case .searchItems:
            return .tuple([.objectPaths(try collection.search(request.argument(0))), .objectPaths([])])
        case .unlock:
            return try prompts.unlock(try request.argument(0).strings(atMost: Self.maxObjectsPerCall) ?? [], caller: request.sender)
        case .lock:
            let objects = try request.argument(0).strings(atMost: Self.maxObjectsPerCall) ?? []
            try items.store.lock()
            items.store.setLockReason("locked by a Secret Service client (Lock): run 'vaultctl unlock'")
            logger.info("locked by a Secret Service client")
            return .tuple([.objectPaths(objects.filter(SecretServicePath.isLockable)), .objectPath(SecretServicePath.none)])
        case .getSecrets:
            return try getSecrets(request)
        case .readAlias:
            let alias = request.argument(0).string ?? ""
            return .tuple([.objectPath(SecretServicePath.aliases.contains(alias) ? SecretServicePath.collection : SecretServicePath.none)])
        case .setAlias:
            let alias = request.argument(0).string ?? "", target = request.argument(1).string ?? ""
            guard SecretServicePath.aliases.contains(alias), SecretServicePath.isCollection(target) else {
                throw BusError.notSupported("vaultd's aliases default and login always name its one collection, \(SecretServicePath.collection)")
            }
            return nil
        }
    }

    func properties(at path: String) throws -> [(String, BusValue)] {
        [("Collections", .objectPaths([SecretServicePath.collection]))]
    }

    func setProperty(_ name: String, to value: BusVariant, at path: String, for request: BusRequest) throws {
        throw BusError.notSupported("vaultd's collection is the whole vault: its \(name) cannot be changed")
    }

    /// All or none: when one item is refused, the call fails and none was read.
    private func getSecrets(_ request: BusRequest) throws -> BusValue {
        let session = try sessions.session(request.argument(1).string ?? "", of: request.sender)
        var paths: [ItemKey: String] = [:]
        for path in try request.argument(0).strings(atMost: Self.maxObjectsPerCall) ?? [] {
            if let key = SecretServicePath.key(ofItem: path), !key.isReserved, paths[key] == nil { paths[key] = path }
        }
        let read = try items.readAll(paths.keys.sorted(), by: callers.asking(request), in: .plainSecrets)
        let secrets = try read.map { (paths[$0.info.key]!, try session.encode($0.secret, contentType: $0.info.contentType)) }
        return .tuple([.objectDictionary(valueType: "(oayays)", secrets)])
    }
}
