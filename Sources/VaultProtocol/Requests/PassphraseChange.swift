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
        let fields = try SecretFields.of(decoder)
        guard let current = try fields.string(CodingKeys.current.stringValue), let new = try fields.string(CodingKeys.new.stringValue)
        else { throw VaultError.invalidInput("change_passphrase needs 'passphrase' and 'new_passphrase'") }
        self.current = current
        self.new = new
    }

    public func encode(to encoder: Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encodeSecret(current, as: .text, forKey: .current, in: encoder)
        try container.encodeSecret(new, as: .text, forKey: .new, in: encoder)
    }
}
