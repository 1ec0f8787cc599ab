/// One request line. Fields beyond `id` and `op` depend on the operation; unknown fields are ignored.
public struct Request: Codable, Sendable {
    public var id: RequestID?
    public var op: String
    public var service: String?
    public var account: String?
    /// The secret as UTF-8 text, or `secretBase64` for any bytes.
    public var secret: String?
    public var secretBase64: String?
    public var label: String?
    public var comment: String?
    public var passphrase: String?
    public var newPassphrase: String?
    /// `migrate`: the destination store, "file" or "secret-service".
    public var to: String?
    /// `token`: the least validity, in seconds, the returned token must have (default 60).
    public var minTTL: Double?
    /// `login`: the provider and its settings; `password` travels like a secret.
    public var provider: String?
    public var tokenEndpoint: String?
    public var clientID: String?
    public var clientSecret: String?
    public var scope: String?
    public var username: String?
    public var password: String?
    /// Supabase: the project URL, its API key, the user's email.
    public var url: String?
    public var apiKey: String?
    public var email: String?
    /// `device_start` / `device_poll` (RFC 8628).
    public var deviceEndpoint: String?
    public var deviceCode: String?
    /// `import_session`: the session as JSON text.
    public var session: String?

    enum CodingKeys: String, CodingKey {
        case id, op, service, account, secret, label, comment, passphrase, to, provider, scope, username, password, session, url, email
        case apiKey = "api_key"
        case deviceEndpoint = "device_endpoint"
        case deviceCode = "device_code"
        case minTTL = "min_ttl"
        case tokenEndpoint = "token_endpoint"
        case clientID = "client_id"
        case clientSecret = "client_secret"
        case secretBase64 = "secret_b64"
        case newPassphrase = "new_passphrase"
    }

    public init(
        id: RequestID? = nil, op: Operation, service: String? = nil, account: String? = nil, secret: String? = nil,
        secretBase64: String? = nil, label: String? = nil, comment: String? = nil, passphrase: String? = nil,
        newPassphrase: String? = nil, to: String? = nil
    ) {
        self.id = id
        self.op = op.rawValue
        self.service = service
        self.account = account
        self.secret = secret
        self.secretBase64 = secretBase64
        self.label = label
        self.comment = comment
        self.passphrase = passphrase
        self.newPassphrase = newPassphrase
        self.to = to
    }
}

/// Only the id, decoded leniently so that even a malformed request gets its id echoed back.
public struct RequestEnvelope: Decodable, Sendable {
    public var id: RequestID?
}
