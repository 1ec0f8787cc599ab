import VaultCore

/// `change_passphrase`: the current passphrase and the new one.
public struct PassphraseChange: Codable, Sendable {
    public var current: SecretBytes
    public var new: SecretBytes

    enum CodingKeys: String, CodingKey {
        case current = "passphrase"
        case new = "new_passphrase"
    }

    public init(current: SecretBytes, new: SecretBytes) {
        self.current = current
        self.new = new
    }

    public init(from decoder: Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        guard let current = try container.decodeIfPresent(String.self, forKey: .current),
              let new = try container.decodeIfPresent(String.self, forKey: .new)
        else { throw VaultError.invalidInput("change_passphrase needs 'passphrase' and 'new_passphrase'") }
        self.current = SecretBytes(utf8: current)
        self.new = SecretBytes(utf8: new)
    }

    public func encode(to encoder: Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(WireSecret.text(current), forKey: .current)
        try container.encode(WireSecret.text(new), forKey: .new)
    }
}
