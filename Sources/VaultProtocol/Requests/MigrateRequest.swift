import VaultCore

/// `migrate`: the destination store, and its passphrase when it is the file store and vaultd has
/// no source for one.
public struct MigrateRequest: Codable, Sendable {
    public var destination: StoreKind
    public var passphrase: SecretBytes?

    enum CodingKeys: String, CodingKey {
        case destination = "to"
        case passphrase
    }

    public init(destination: StoreKind, passphrase: SecretBytes? = nil) {
        self.destination = destination
        self.passphrase = passphrase
    }

    public init(from decoder: Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let choices = StoreKind.persistent.map(\.rawValue).joined(separator: " or ")
        guard let name = try container.decodeIfPresent(String.self, forKey: .destination) else {
            throw VaultError.invalidInput("migrate needs 'to': \(choices)")
        }
        guard let destination = StoreKind(rawValue: name), StoreKind.persistent.contains(destination) else {
            throw VaultError.invalidInput("unknown store '\(name.replacingControlCharacters())'; use \(choices)")
        }
        self.destination = destination
        passphrase = try SecretFields.of(decoder).string(CodingKeys.passphrase.stringValue)
    }

    public func encode(to encoder: Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(destination, forKey: .destination)
        if let passphrase { try container.encodeSecret(passphrase, as: .text, forKey: .passphrase, in: encoder) }
    }
}
