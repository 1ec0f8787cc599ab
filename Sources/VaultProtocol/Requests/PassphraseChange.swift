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
        let container = try decoder.container(keyedBy: CodingKeys.self)
        guard let current = try container.decodeIfPresent(String.self, forKey: .current),
              let new = try container.decodeIfPresent(String.self, forKey: .new)
        else { throw VaultError.invalidInput("change_passphrase needs 'passphrase' and 'new_passphrase'") }
        self.current = SecretBytes(utf8: current)
        self.new = SecretBytes(utf8: new)
        rekey = try container.decodeIfPresent(Bool.self, forKey: .rekey) ?? true
    }

    public func encode(to encoder: Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(WireSecret.text(current), forKey: .current)
        try container.encode(WireSecret.text(new), forKey: .new)
        if !rekey { try container.encode(false, forKey: .rekey) }
    }
}
