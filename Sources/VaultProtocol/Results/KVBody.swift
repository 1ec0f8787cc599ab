/// What `kv_get` and `kv_put` say about the version they read or wrote (the value itself is
/// `result.item.secret`): its number and time, and for a read, how old the copy is and whether
/// it came from the cache because the engine could not be reached.
public struct KVBody: Codable, Sendable, Equatable {
    public var remote: String
    public var path: String
    public var version: Int
    /// RFC 3339, as the engine wrote it.
    public var created: String
    /// Seconds since the engine last confirmed this is the current version (0: just now).
    public var age: Double
    /// True when served from the cache while the engine was unreachable.
    public var offline: Bool?

    public init(remote: String, path: String, version: Int, created: String, age: Double, offline: Bool? = nil) {
        self.remote = remote
        self.path = path
        self.version = version
        self.created = created
        self.age = age
        self.offline = offline
    }
}

/// One version in `kv_history`.
public struct KVVersionBody: Codable, Sendable, Equatable {
    public var version: Int
    public var created: String
    /// RFC 3339 when soft-deleted (absent: not deleted).
    public var deleted: String?
    public var destroyed: Bool?
    public var current: Bool?

    public init(version: Int, created: String, deleted: String? = nil, destroyed: Bool? = nil, current: Bool? = nil) {
        self.version = version
        self.created = created
        self.deleted = deleted
        self.destroyed = destroyed
        self.current = current
    }
}
