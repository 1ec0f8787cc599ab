import VaultCore

/// `kv_put`: sets `field` of a remote secret to `secret`, keeping its other fields; without
/// `field`, `secret` is a JSON object of strings that becomes all of the secret's fields (as
/// `bao kv put` does). Check-and-set on the version this vaultd last saw; `force` writes over
/// whatever is there.
public struct KVWrite: Codable, Sendable {
    public var remote: String
    public var path: String
    public var field: String?
    public var secret: SecretBytes
    public var force: Bool?

    enum CodingKeys: String, CodingKey { case remote, path, field, secret, force }

    public init(remote: String, path: String, field: String?, secret: SecretBytes, force: Bool? = nil) {
        self.remote = remote
        self.path = path
        self.field = field
        self.secret = secret
        self.force = force
    }

    public init(from decoder: Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        remote = try container.decode(String.self, forKey: .remote)
        path = try container.decode(String.self, forKey: .path)
        field = try container.decodeIfPresent(String.self, forKey: .field)
        force = try container.decodeIfPresent(Bool.self, forKey: .force)
        guard let secret = try SecretFields.of(decoder).string(CodingKeys.secret.stringValue) else {
            throw VaultError.invalidInput("kv_put needs 'secret': the field's new value, or without 'field' a JSON object of the secret's fields")
        }
        self.secret = secret
    }

    public func encode(to encoder: Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(remote, forKey: .remote)
        try container.encode(path, forKey: .path)
        try container.encodeIfPresent(field, forKey: .field)
        try container.encodeIfPresent(force, forKey: .force)
        try container.encodeSecret(secret, as: .text, forKey: .secret, in: encoder)
    }
}
