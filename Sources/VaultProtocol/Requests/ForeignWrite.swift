import VaultCore

/// `foreign_set`: the schema, the item's key attributes (as in `ForeignQuery`), its label and
/// the secret (`secret` or `secret_b64`).
public struct ForeignWrite: Codable, Sendable {
    public var schema: String
    public var attributes: [String: String?]
    public var label: String
    public var secret: SecretBytes

    enum CodingKeys: String, CodingKey {
        case schema, attributes, label, secret
        case secretBase64 = "secret_b64"
    }

    public init(schema: String, attributes: [String: String?], label: String, secret: SecretBytes) {
        self.schema = schema
        self.attributes = attributes
        self.label = label
        self.secret = secret
    }

    public init(from decoder: Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        schema = try container.decode(String.self, forKey: .schema)
        attributes = try container.decode([String: String?].self, forKey: .attributes)
        label = try container.decode(String.self, forKey: .label)
        guard let secret = try WireSecret.decode(decoder, field: "secret") else { throw VaultError.invalidInput("missing field 'secret' (or 'secret_b64')") }
        self.secret = secret
    }

    public func encode(to encoder: Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(schema, forKey: .schema)
        try container.encode(attributes, forKey: .attributes)
        try container.encode(label, forKey: .label)
        try WireSecret.encode(secret, text: .secret, base64: .secretBase64, in: &container, encoder: encoder)
    }
}
