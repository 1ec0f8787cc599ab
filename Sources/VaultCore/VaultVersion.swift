/// The version vaultd and vaultctl report (`status`, `--version`).
public enum VaultVersion {
    public static let string = "0.1.0"
    /// Bumped when a request or response changes incompatibly.
    public static let protocolVersion = 2
}
