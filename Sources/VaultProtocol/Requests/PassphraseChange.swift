import VaultCore

/// `change_passphrase`: the current passphrase and the new one; `rekey` (default true) gives the
/// vault a new data key and re-encrypts every item, false only re-wraps the data key.
public struct PassphraseChange: Codable, Sendable {
    public var current: SecretBytes
    public var new: SecretBytes
    public var rekey: Bool

    enum CodingKeys: String, CodingKey {
        case current = "passphrase"
        case new = "new_passphrase"
        case rekey
    }

    public init(current: SecretBytes, new: SecretBytes, rekey: Bool = true) {
        self.current = current
        self.new = new
        self.rekey = rekey
    }

    public init(from decoder: Decoder) throws {
        let fields = try SecretFields.of(decoder)
        guard let current = try fields.string(CodingKeys.current.stringValue), let new = try fields.string(CodingKeys.new.stringValue)
        else { throw VaultError.invalidInput("change_passphrase needs 'passphrase' and 'new_passphrase'") }
        self.current = current
        self.new = new
        rekey = try decoder.container(keyedBy: CodingKeys.self).decodeIfPresent(Bool.self, forKey: .rekey) ?? true
    }

    public func encode(to encoder: Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encodeSecret(current, as: .text, forKey: .current, in: encoder)
        try container.encodeSecret(new, as: .text, forKey: .new, in: encoder)
        if !rekey { try container.encode(false, forKey: .rekey) }
    }
}
