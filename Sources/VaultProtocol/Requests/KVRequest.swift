/// `kv_get`, `kv_delete`, `kv_history`, `kv_list`: a remote secret (or, for `kv_list`, a
/// folder) by remote and path; `field` and `version` for `kv_get` (no field: every field as one
/// JSON object); `refresh` asks `kv_get` to ask the engine now rather than serve the cache.
public struct KVRequest: Codable, Sendable, Equatable {
    public var remote: String
    public var path: String
    public var field: String?
    public var version: Int?
    public var refresh: Bool?

    public init(remote: String, path: String, field: String? = nil, version: Int? = nil, refresh: Bool? = nil) {
        self.remote = remote
        self.path = path
        self.field = field
        self.version = version
        self.refresh = refresh
    }
}
