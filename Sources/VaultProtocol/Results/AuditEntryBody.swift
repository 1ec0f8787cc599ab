/// One record of the audit log: when, which operation on which item, the result (`ok` or an
/// error code), and the caller. Never a secret.
public struct AuditEntryBody: Codable, Sendable, Equatable {
    public var time: String
    public var op: String
    public var service: String?
    public var account: String?
    public var result: String
    public var pid: Int32?
    public var exe: String?
    public var script: String?
    public var unit: String?
    /// How access to a guarded item was granted: "rule", "approved once", "approved for 5 minutes", ...
    public var grant: String?
    /// The chain it belongs to (one per vaultd process writing the log), its place in that chain
    /// from 1, and the previous record's tag (base64; absent for the first): what lets a reader
    /// tell records deleted, replayed, reordered or cut off (docs/protocol.md, "Audit log").
    public var chain: String?
    public var seq: Int64?
    public var prev: String?

    public init(time: String, op: String, service: String?, account: String?, result: String, pid: Int32?, exe: String?,
                script: String? = nil, unit: String? = nil, grant: String? = nil) {
        self.time = time
        self.op = op
        self.service = service
        self.account = account
        self.result = result
        self.pid = pid
        self.exe = exe
        self.script = script
        self.unit = unit
        self.grant = grant
    }

    /// Equal but for the chain's fields (vaultctl prints the records without them).
    public var unchained: AuditEntryBody {
        var entry = self
        (entry.chain, entry.seq, entry.prev) = (nil, nil, nil)
        return entry
    }
}
