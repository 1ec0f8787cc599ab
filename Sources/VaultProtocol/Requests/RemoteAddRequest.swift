import VaultCore

/// `remote_add`: a remote engine's settings (checked by vaultd) and, in `secret`, the token,
/// AppRole secret id or password it logs in with (absent for JWT). `remote_login` sends the
/// name alone and, for a new credential, `secret` (`RemoteNameRequest`).
public struct RemoteAddRequest: Codable, Sendable {
    public var name: String
    public var url: String
    public var mount: String?
    public var prefix: String?
    public var caFile: String?
    /// Seconds.
    public var maxAge: Double?
    public var auth: String
    public var roleID: String?
    public var username: String?
    public var role: String?
    public var jwtFile: String?
    public var secret: SecretBytes?

    enum CodingKeys: String, CodingKey {
        case name, url, mount, prefix, auth, username, role, secret
        case caFile = "ca_file"
        case maxAge = "max_age"
        case roleID = "role_id"
        case jwtFile = "jwt_file"
    }

    public init(name: String, url: String, mount: String? = nil, prefix: String? = nil, caFile: String? = nil, maxAge: Double? = nil,
                auth: String, roleID: String? = nil, username: String? = nil, role: String? = nil, jwtFile: String? = nil, secret: SecretBytes? = nil) {
        self.name = name
        self.url = url
        self.mount = mount
        self.prefix = prefix
        self.caFile = caFile
        self.maxAge = maxAge
        self.auth = auth
        self.roleID = roleID
        self.username = username
        self.role = role
        self.jwtFile = jwtFile
        self.secret = secret
    }

    public init(from decoder: Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        name = try container.decode(String.self, forKey: .name)
        url = try container.decode(String.self, forKey: .url)
        mount = try container.decodeIfPresent(String.self, forKey: .mount)
        prefix = try container.decodeIfPresent(String.self, forKey: .prefix)
        caFile = try container.decodeIfPresent(String.self, forKey: .caFile)
        maxAge = try container.decodeIfPresent(Double.self, forKey: .maxAge)
        auth = try container.decode(String.self, forKey: .auth)
        roleID = try container.decodeIfPresent(String.self, forKey: .roleID)
        username = try container.decodeIfPresent(String.self, forKey: .username)
        role = try container.decodeIfPresent(String.self, forKey: .role)
        jwtFile = try container.decodeIfPresent(String.self, forKey: .jwtFile)
        secret = try SecretFields.of(decoder).string(CodingKeys.secret.stringValue)
    }

    public func encode(to encoder: Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(name, forKey: .name)
        try container.encode(url, forKey: .url)
        try container.encodeIfPresent(mount, forKey: .mount)
        try container.encodeIfPresent(prefix, forKey: .prefix)
        try container.encodeIfPresent(caFile, forKey: .caFile)
        try container.encodeIfPresent(maxAge, forKey: .maxAge)
        try container.encode(auth, forKey: .auth)
        try container.encodeIfPresent(roleID, forKey: .roleID)
        try container.encodeIfPresent(username, forKey: .username)
        try container.encodeIfPresent(role, forKey: .role)
        try container.encodeIfPresent(jwtFile, forKey: .jwtFile)
        if let secret { try container.encodeSecret(secret, as: .text, forKey: .secret, in: encoder) }
    }
}
