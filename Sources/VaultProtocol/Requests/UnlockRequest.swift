import VaultCore

/// `unlock`: the file store's passphrase; none for the Secret Service, which unlocks itself.
public struct UnlockRequest: Codable, Sendable {
    public var passphrase: SecretBytes?

    enum CodingKeys: String, CodingKey { case passphrase }

    public init(passphrase: SecretBytes?) { self.passphrase = passphrase }

    public init(from decoder: Decoder) throws {
        passphrase = try SecretFields.of(decoder).string("passphrase")
    }

    public func encode(to encoder: Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        if let passphrase { try container.encodeSecret(passphrase, as: .text, forKey: .passphrase, in: encoder) }
    }
}
