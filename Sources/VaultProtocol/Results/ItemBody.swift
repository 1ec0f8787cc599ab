import VaultCore

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
    /// Only in `get`: on the wire `secret` when the bytes are UTF-8, `secret_b64` otherwise.
    public var secret: SecretBytes?
    /// For sign-in sessions (`list`, `status`): who, with which provider, until when. No tokens.
    public var session: SessionBody?
    /// How many other items the store holds under this key (Secret Service duplicates); absent
    /// when none.
    public var duplicates: Int?
    /// Only for another helper's item (`foreign_get`): its key attributes.
    public var attributes: [String: String]?

    enum CodingKeys: String, CodingKey {
        case service, account, label, comment, kind, created, modified, secret, session, duplicates, attributes
        case secretBase64 = "secret_b64"
    }

    public init(
        service: String, account: String, label: String, comment: String, kind: String, created: String, modified: String,
        secret: SecretBytes? = nil
    ) {
        self.service = service
        self.account = account
        self.label = label
        self.comment = comment
        self.kind = kind
        self.created = created
        self.modified = modified
        self.secret = secret
    }

    public init(from decoder: Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        service = try container.decode(String.self, forKey: .service)
        account = try container.decode(String.self, forKey: .account)
        label = try container.decode(String.self, forKey: .label)
        comment = try container.decode(String.self, forKey: .comment)
        kind = try container.decode(String.self, forKey: .kind)
        created = try container.decode(String.self, forKey: .created)
        modified = try container.decode(String.self, forKey: .modified)
        session = try container.decodeIfPresent(SessionBody.self, forKey: .session)
        duplicates = try container.decodeIfPresent(Int.self, forKey: .duplicates)
        attributes = try container.decodeIfPresent([String: String].self, forKey: .attributes)
        // A secret is read only where a response carries one (`result.item`, by SecretFields);
        // anywhere else one is refused rather than decoded into a String.
        if decoder.codingPath.map(\.stringValue) == ResponseLine.secretPath {
            secret = try WireSecret.decode(decoder, field: CodingKeys.secret.stringValue)
        } else if container.contains(.secret) || container.contains(.secretBase64) {
            throw VaultError.invalidInput("an item outside 'result.item' carries a secret")
        }
    }

    public func encode(to encoder: Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(service, forKey: .service)
        try container.encode(account, forKey: .account)
        try container.encode(label, forKey: .label)
        try container.encode(comment, forKey: .comment)
        try container.encode(kind, forKey: .kind)
        try container.encode(created, forKey: .created)
        try container.encode(modified, forKey: .modified)
        try container.encodeIfPresent(session, forKey: .session)
        if let duplicates, duplicates > 0 { try container.encode(duplicates, forKey: .duplicates) }
        try container.encodeIfPresent(attributes, forKey: .attributes)
        if let secret { try WireSecret.encode(secret, text: .secret, base64: .secretBase64, in: &container, encoder: encoder) }
    }
}
