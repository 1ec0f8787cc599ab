/// An item on the wire. `secret` (UTF-8 text) or `secret_b64` (any bytes) only in `get`.
public struct ItemBody: Codable, Sendable, Equatable {
    public var service: String
    public var account: String
    public var label: String
    public var comment: String
    public var kind: String
    /// RFC 3339 UTC timestamps with milliseconds.
    public var created: String
    public var modified: String
    public var secret: String?
    public var secretBase64: String?
    /// For sign-in sessions (`list`, `status`): who, with which provider, until when. No tokens.
    public var session: SessionBody?

    enum CodingKeys: String, CodingKey {
        case service, account, label, comment, kind, created, modified, secret, session
        case secretBase64 = "secret_b64"
    }

    public init(
        service: String, account: String, label: String, comment: String, kind: String, created: String, modified: String,
        secret: String? = nil, secretBase64: String? = nil
    ) {
        self.service = service
        self.account = account
        self.label = label
        self.comment = comment
        self.kind = kind
        self.created = created
        self.modified = modified
        self.secret = secret
        self.secretBase64 = secretBase64
    }
}
