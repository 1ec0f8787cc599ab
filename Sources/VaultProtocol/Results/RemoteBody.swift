/// One remote engine in `remote_list`, `status` and `doctor`: its settings (no credential, no
/// token) and how it is: reachable, the token's time left, the cache's size and age.
public struct RemoteBody: Codable, Sendable, Equatable {
    public var name: String
    public var url: String
    public var mount: String
    public var prefix: String
    /// Seconds.
    public var maxAge: Double
    public var auth: String
    /// Whether the last request reached the engine (absent: none yet).
    public var reachable: Bool?
    /// Why the last request failed, when it did.
    public var problem: String?
    /// Seconds the engine's token has left (absent: it does not expire or there is none).
    public var tokenTTL: Double?
    public var loggedIn: Bool
    /// RFC 3339: the last answer from the engine, the last completed background refresh.
    public var lastContact: String?
    public var lastRefresh: String?
    /// Secrets cached, and how many of them the engine has not confirmed for longer than a refresh interval.
    public var cached: Int
    public var stale: Int
    /// Seconds since the oldest cached copy was confirmed (absent: none cached).
    public var oldest: Double?

    enum CodingKeys: String, CodingKey {
        case name, url, mount, prefix, auth, reachable, problem, cached, stale, oldest
        case maxAge = "max_age"
        case tokenTTL = "token_ttl"
        case loggedIn = "logged_in"
        case lastContact = "last_contact"
        case lastRefresh = "last_refresh"
    }

    public init(name: String, url: String, mount: String, prefix: String, maxAge: Double, auth: String, loggedIn: Bool, cached: Int, stale: Int) {
        self.name = name
        self.url = url
        self.mount = mount
        self.prefix = prefix
        self.maxAge = maxAge
        self.auth = auth
        self.loggedIn = loggedIn
        self.cached = cached
        self.stale = stale
    }
}
