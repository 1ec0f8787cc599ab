import VaultCore

/// What `migrate` did. `conflicts` are keys both stores held with different secrets: both kept.
public struct MigrationReport: Sendable, Equatable {
    public var from: StoreKind
    public var to: StoreKind
    public var copied: Int
    public var alreadyPresent: Int
    public var removed: Int
    public var conflicts: [ItemKey]
    /// Keys under which the source held several items: the newest was moved, all removed.
    public var collapsed: [ItemKey] = []
    /// Source items no key can address: not moved, still in the source.
    public var leftInPlace: [UnaddressableItem] = []
    /// The configuration file in which vaultd recorded `backend = TO`, so a restart keeps it;
    /// nil when it could not (the daemon's status says why).
    public var recordedIn: String?
}
