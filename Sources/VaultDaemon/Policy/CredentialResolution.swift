import VaultCore

/// What `ItemService.resolveCredential` found for a credential helper: vault's own item, the
/// other helper's, several with nothing to choose between them, or nothing.
enum CredentialResolution: Sendable {
    case item(Item)
    case foreign(ForeignItem, secret: SecretBytes)
    /// `count` credentials, all vault's own (`ownItems`) or all the other helper's, and no
    /// account to choose one by.
    case ambiguous(ownItems: Bool, count: Int)
    case nothing
}
