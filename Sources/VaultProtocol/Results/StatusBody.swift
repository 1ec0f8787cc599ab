public struct StatusBody: Codable, Sendable, Equatable {
    public var version: String
    public var protocolVersion: Int
    public var pid: Int32
    public var backend: String
    /// Why this backend was chosen, for humans.
    public var backendReason: String
    public var locked: Bool
    /// Where the store keeps its data (file path, collection).
    public var location: String
    /// False when the file store has no vault yet: the first unlock creates it.
    public var exists: Bool
    /// Every item, counting duplicates and unaddressable ones (nil when locked).
    public var items: Int?
    /// Of `items`: those no key can address, and extra items under a key (absent when 0).
    public var unaddressable: Int?
    public var duplicates: Int?
    public var socket: String
    /// When locked, what went wrong with the last unlock attempt (never a secret).
    public var lockReason: String?
    /// The sign-in sessions kept, with their details (when unlocked).
    public var sessions: [ItemBody]?
    /// Whether vaultd serves the Secret Service D-Bus API (owns org.freedesktop.secrets), and
    /// why or why not (absent from a vaultd without the provider).
    public var secretServiceProvider: Bool?
    public var secretServiceProviderReason: String?
    /// The remote engines (when unlocked; absent when there are none).
    public var remotes: [RemoteBody]?
    /// The spaces this device is in (when unlocked; absent when none).
    public var spaces: [SpaceBody]?

    enum CodingKeys: String, CodingKey {
        case version, pid, backend, locked, location, exists, items, socket, unaddressable, duplicates
        case protocolVersion = "protocol"
        case backendReason = "backend_reason"
        case lockReason = "lock_reason"
        case sessions, remotes, spaces
        case secretServiceProvider = "secret_service_provider"
        case secretServiceProviderReason = "secret_service_provider_reason"
    }

    public init(
        version: String, protocolVersion: Int, pid: Int32, backend: String, backendReason: String, locked: Bool,
        location: String, exists: Bool, items: Int?, socket: String, lockReason: String?, sessions: [ItemBody]? = nil
    ) {
        self.sessions = sessions
        self.version = version
        self.protocolVersion = protocolVersion
        self.pid = pid
        self.backend = backend
        self.backendReason = backendReason
        self.locked = locked
        self.location = location
        self.exists = exists
        self.items = items
        self.unaddressable = nil
        self.duplicates = nil
        self.socket = socket
        self.lockReason = lockReason
    }
}
