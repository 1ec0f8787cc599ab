import VaultCore

/// `set_approval_secret`: sets the approval secret `new_secret` (what `approve_next` must carry).
/// Changing one needs `secret`: the current approval secret or, on a store with a passphrase of
/// its own (the file store), the vault's passphrase; that passphrase is needed to set the first
/// one too.
public struct ApprovalSecretChange: Codable, Sendable {
    public var secret: SecretBytes?
    public var new: SecretBytes

    enum CodingKeys: String, CodingKey {
        case secret
        case new = "new_secret"
    }

    public init(secret: SecretBytes?, new: SecretBytes) {
        self.secret = secret
        self.new = new
    }

    public init(from decoder: Decoder) throws {
        let fields = try SecretFields.of(decoder)
        guard let new = try fields.string(CodingKeys.new.stringValue) else {
            throw VaultError.invalidInput("set_approval_secret needs 'new_secret'")
        }
        self.new = new
        secret = try fields.string(CodingKeys.secret.stringValue)
    }

    public func encode(to encoder: Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        if let secret { try container.encodeSecret(secret, as: .text, forKey: .secret, in: encoder) }
        try container.encodeSecret(new, as: .text, forKey: .new, in: encoder)
    }
}
