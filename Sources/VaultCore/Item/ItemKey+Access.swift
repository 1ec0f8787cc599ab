/// The items vault keeps for itself, of kind `access`: the access rules and the audit log's key.
/// Requests cannot read, write, delete or list them; `allow`, `disallow` and `--confirm` change
/// the rules, vaultd makes the key.
extension ItemKey {
    public static let reservedService = "vault.access"

    /// Every rule of the vault, one JSON document (`AccessRules`).
    public static let accessRules = try! ItemKey(service: reservedService, account: "rules")
    /// The audit log's AES-256-GCM key, made at random on first use.
    public static let auditKey = try! ItemKey(service: reservedService, account: "audit-key")

    /// Whether this is one of vault's own items, which requests cannot address.
    public var isReserved: Bool { service == Self.reservedService }
}
