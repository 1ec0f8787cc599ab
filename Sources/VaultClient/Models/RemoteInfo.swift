import VaultCore

/// A remote engine as vaultd describes it (`remotes()`, `status`, `doctor`): its settings, never
/// its credential or token, and how it stands.
public struct RemoteInfo: Sendable, Equatable {
    public var name: String
    public var url: String
    public var mount: String
    public var prefix: String
    /// Seconds a cached copy is served while the engine cannot be reached.
    public var maxAge: Double
    /// The auth method and who ("approle (role id …)"), never a secret.
    public var auth: String
    /// Whether the last request reached the engine (nil: none yet), and why not.
    public var reachable: Bool?
    public var problem: String?
    public var loggedIn: Bool
    /// Seconds the engine's token has left (nil: it does not expire, or there is none).
    public var tokenTTL: Double?
    public var lastContact: String?
    public var lastRefresh: String?
    public var cached: Int
    /// Cached secrets the engine has not confirmed for longer than two refresh intervals.
    public var stale: Int
    /// Seconds since the oldest cached copy was confirmed.
    public var oldest: Double?
}

/// A remote secret as read: the value (a field, or every field as one JSON object) and its version.
public struct RemoteSecret: Sendable {
    public var value: SecretBytes
    public var version: Int
    public var created: String
    /// Seconds since the engine last confirmed it is the current version.
    public var age: Double
    /// Served from vaultd's cache because the engine could not be reached.
    public var offline: Bool
}

/// One version in a remote secret's history.
public struct RemoteSecretVersion: Sendable, Equatable, Encodable {
    public var version: Int
    public var created: String
    public var deleted: String?
    public var destroyed: Bool
    public var current: Bool
}

/// How to reach and log in to a remote engine, for `addRemote`.
public struct RemoteAddition: Sendable {
    public var name: String
    public var url: String
    public var mount: String?
    public var prefix: String?
    public var caFile: String?
    public var maxAge: Double?
    /// token, approle, userpass or jwt.
    public var auth: String
    public var roleID: String?
    public var username: String?
    public var role: String?
    public var jwtFile: String?

    public init(name: String, url: String, auth: String, mount: String? = nil, prefix: String? = nil, caFile: String? = nil, maxAge: Double? = nil,
                roleID: String? = nil, username: String? = nil, role: String? = nil, jwtFile: String? = nil) {
        self.name = name
        self.url = url
        self.auth = auth
        self.mount = mount
        self.prefix = prefix
        self.caFile = caFile
        self.maxAge = maxAge
        self.roleID = roleID
        self.username = username
        self.role = role
        self.jwtFile = jwtFile
    }
}
