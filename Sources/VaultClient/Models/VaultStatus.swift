import VaultCore

/// What `status` reports: the daemon, the store in use and why, and its lock state.
public struct VaultStatus: Sendable, Equatable {
    public var version: String
    public var protocolVersion: Int
    public var pid: Int32
    public var store: StoreKind
    /// Why this store was chosen, for people.
    public var storeReason: String
    public var isLocked: Bool
    /// When locked, what went wrong with the last unlock (never a secret).
    public var lockReason: String?
    /// Where the store keeps its data (a path, a collection).
    public var location: String
    /// False while the file store has no vault yet: the first unlock creates it.
    public var exists: Bool
    /// nil while locked. Counts every item, duplicates and unaddressable ones too.
    public var itemCount: Int?
    /// Of `itemCount`: items no service/account pair can address (see `ItemListing`), and extra
    /// items under a key another item holds.
    public var unaddressableCount: Int = 0
    public var duplicateCount: Int = 0
    public var socket: String
    /// The sign-in sessions kept (when unlocked).
    public var sessions: [ItemMetadata]
    /// Whether vaultd serves the Secret Service D-Bus API, and why or why not (nil from a vaultd
    /// that does not say).
    public var secretServiceProvider: Bool?
    public var secretServiceProviderReason: String?
    /// The remote engines (when unlocked).
    public var remotes: [RemoteInfo] = []
    /// The spaces this device is in (when unlocked).
    public var spaces: [SpaceInfo] = []
}
