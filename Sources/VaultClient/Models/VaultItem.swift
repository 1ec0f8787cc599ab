import VaultCore

/// An item with its secret, as `get` returns it. The secret is `SecretBytes`: wiped when
/// released, printed as `<redacted>`.
public struct VaultItem: Sendable {
    public let metadata: ItemMetadata
    public let secret: SecretBytes

    public init(metadata: ItemMetadata, secret: SecretBytes) {
        self.metadata = metadata
        self.secret = secret
    }
}
