/// The items vault keeps for itself, of kind `access`: the access rules, the audit log's key and
/// the approval secret's verifier.
/// Requests cannot read, write, delete or list them; `allow`, `disallow` and `--confirm` change
/// the rules, vaultd makes the key.
extension ItemKey {
    public static let reservedService = "vault.access"

    /// Every rule of the vault, one JSON document (`AccessRules`).
    public static let accessRules = try! ItemKey(service: reservedService, account: "rules")
    /// The audit log's AES-256-GCM key, made at random on first use.
    public static let auditKey = try! ItemKey(service: reservedService, account: "audit-key")

    /// The heads of the audit log's chains, kept beyond the file (`AuditHeads`).
    public static let auditHeads = try! ItemKey(service: reservedService, account: "audit-heads")
    /// What proves an approver (`ApprovalSecret`): an scrypt hash of the approval secret.
    public static let approvalSecret = try! ItemKey(service: reservedService, account: "approver")

    /// Whether this is one of vault's own items, which requests cannot address.
    public var isReserved: Bool { Self.reservedServices.contains(service) }
}
