import VaultCore

/// `remote_remove` and `remote_login`: a remote by name; for `remote_login`, the new token,
/// secret id or password in `secret` (absent: log in again with the one kept).
public struct RemoteNameRequest: Codable, Sendable {
    public var name: String
    public var secret: SecretBytes?

    enum CodingKeys: String, CodingKey { case name, secret }

    public init(name: String, secret: SecretBytes? = nil) {
        self.name = name
        self.secret = secret
    }

    public init(from decoder: Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        name = try container.decode(String.self, forKey: .name)
        secret = try SecretFields.of(decoder).string(CodingKeys.secret.stringValue)
    }

    public func encode(to encoder: Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(name, forKey: .name)
        if let secret { try container.encodeSecret(secret, as: .text, forKey: .secret, in: encoder) }
    }
}
