/// Where remote engines live among the items: vault's own records of each remote (its settings,
/// its credential, the engine's token) and the cached copies of its secrets, all of kind
/// `access` under reserved services, so no request reads, lists or writes them as items. A
/// remote secret as the access rules and the audit log name it is `ItemKey.remoteSecret`.
extension ItemKey {
    /// One item per remote, account the remote's name: `RemoteRecord` as JSON.
    public static let remotesService = "vault.remote"
    /// One item per cached remote secret, account `REMOTE/PATH`: `CachedSecret` as JSON.
    public static let remoteCacheService = "vault.kv"
    /// One item per space this device is in, account the space's name: `SpaceState` as JSON.
    public static let spacesService = "vault.space"
    /// One item per item a space shares, account `SPACE/ID`: its `SpaceState.Tracked` as JSON.
    public static let spaceItemsService = "vault.space-item"
    /// Every service vault keeps its own records under.
    public static let reservedServices: Set<String> = [reservedService, remotesService, remoteCacheService, spacesService, spaceItemsService]
    /// How a remote secret is named in rules, approvals and the audit log: service `kv://REMOTE`, account `PATH`.
    public static let remoteScheme = "kv://"

    public static func remote(_ name: RemoteName) -> ItemKey {
        try! ItemKey(service: remotesService, account: name.text)
    }

    public static func cached(_ name: RemoteName, _ path: KVPath) -> ItemKey {
        try! ItemKey(service: remoteCacheService, account: name.text + "/" + path.text)
    }

    /// The record of the space `name` (a name by `RemoteName`'s rules, checked by the caller).
    public static func space(_ name: String) -> ItemKey {
        try! ItemKey(service: spacesService, account: name)
    }

    /// The sync state of one shared item of space `name`, by its id (`SpaceState.Tracked.id`).
    public static func spaceItem(_ name: String, _ id: String) -> ItemKey {
        try! ItemKey(service: spaceItemsService, account: name + "/" + id)
    }

    public static func remoteSecret(_ name: RemoteName, _ path: KVPath) -> ItemKey {
        try! ItemKey(service: remoteScheme + name.text, account: path.text)
    }
}
