import VaultCore

/// `unlock`: the file store's passphrase; none for the Secret Service, which unlocks itself.
public struct UnlockRequest: Codable, Sendable {
    public var passphrase: SecretBytes?

    enum CodingKeys: String, CodingKey { case passphrase }

    public init(passphrase: SecretBytes?) { self.passphrase = passphrase }

    public init(from decoder: Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        passphrase = try container.decodeIfPresent(String.self, forKey: .passphrase).map(SecretBytes.init(utf8:))
    }

    public func encode(to encoder: Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encodeIfPresent(passphrase.map(WireSecret.text), forKey: .passphrase)
    }
}
