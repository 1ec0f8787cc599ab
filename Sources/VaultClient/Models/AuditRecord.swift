/// One record of vaultd's audit log (`vaultctl audit`): when (RFC 3339), the operation, the item,
/// the result (`ok` or an error code such as `denied`), and the caller. Never a secret.
public struct AuditRecord: Sendable, Equatable {
    public var time: String
    public var op: String
    public var service: String?
    public var account: String?
    public var result: String
    public var pid: Int32?
    public var exe: String?
    public var script: String?
    public var unit: String?
    /// How access to a guarded item was granted ("rule", "approved once", ...).
    public var grant: String?
}
