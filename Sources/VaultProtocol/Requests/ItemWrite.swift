import VaultCore

/// `add` and `set`: the key, the secret (`secret` or `secret_b64`), and optional metadata. `kind`
/// is the raw value of an `ItemKind` as sent; the dispatcher decides which ones a write may set.
public struct ItemWrite: Codable, Sendable {
    public var service: String
    public var account: String
    public var secret: SecretBytes
    public var label: String?
    public var comment: String?
    public var kind: String?
    /// `true`: from now on, each access needs an approver's answer (`vaultctl approve`).
    public var confirm: Bool?

    enum CodingKeys: String, CodingKey {
        case service, account, secret, label, comment, kind, confirm
        case secretBase64 = "secret_b64"
    }

    public init(service: String, account: String, secret: SecretBytes, label: String? = nil, comment: String? = nil, kind: String? = nil, confirm: Bool? = nil) {
        self.confirm = confirm
        self.service = service
        self.account = account
        self.secret = secret
        self.label = label
        self.comment = comment
        self.kind = kind
    }

    public init(from decoder: Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        service = try container.decode(String.self, forKey: .service)
        account = try container.decode(String.self, forKey: .account)
        guard let secret = try WireSecret.decode(decoder, field: "secret") else { throw VaultError.invalidInput("missing field 'secret' (or 'secret_b64')") }
        self.secret = secret
        label = try container.decodeIfPresent(String.self, forKey: .label)
        comment = try container.decodeIfPresent(String.self, forKey: .comment)
        kind = try container.decodeIfPresent(String.self, forKey: .kind)
        confirm = try container.decodeIfPresent(Bool.self, forKey: .confirm)
    }

    public func encode(to encoder: Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(service, forKey: .service)
        try container.encode(account, forKey: .account)
        try WireSecret.encode(secret, text: .secret, base64: .secretBase64, in: &container, encoder: encoder)
        try container.encodeIfPresent(label, forKey: .label)
        try container.encodeIfPresent(comment, forKey: .comment)
        try container.encodeIfPresent(kind, forKey: .kind)
        try container.encodeIfPresent(confirm, forKey: .confirm)
    }
}
