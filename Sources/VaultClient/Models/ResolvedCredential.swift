import VaultCore

/// What vaultd found for a credential helper (`resolveCredential`): vault's own item, the other
/// helper's item, the linked session's access token, several credentials and no username to
/// choose one (`ambiguous`: among vault's own items, or the other helper's), or nothing.
public enum ResolvedCredential: Sendable {
    case item(VaultItem)
    case foreign(ForeignItem, secret: SecretBytes)
    case token(AccessToken)
    case ambiguous(amongOwnItems: Bool, count: Int)
    case nothing
}
